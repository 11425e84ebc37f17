package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.Resource;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code /large-create} (§3.7, TD_COAP_BLOCK_05): POST (Content-Format required, else 4.00) creates
 * child {@code /large-create/<n>} holding the uploaded body and answers 2.01 with Location-Path
 * {@code large-create}, {@code <n>}; GET lists the children in link-format (RFC 6690). Each child
 * answers GET with its body and DELETE by removing itself.
 */
final class LargeCreateResource extends CoapResource {

    private final AtomicInteger next = new AtomicInteger();

    LargeCreateResource() {
        super("large-create");
        title("Large resource that can be created using POST method");
        resourceType("block");
        advertiseContentFormats(ContentFormat.LINK_FORMAT);
    }

    @Override
    public void handlePOST(CoapExchange exchange) {
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
            return;
        }
        String id = Integer.toString(next.incrementAndGet());
        Representation body = new Representation(exchange.payload(), format);
        CoapResource child = new CoapResource(id);
        child.onGet(ex -> ex.respond(Code.CONTENT, body.body(), body.contentFormat()));
        child.onDelete(ex -> {
            child.delete();
            ex.respond(Code.DELETED);
        });
        add(child);
        exchange.respond(Code.CREATED, r -> r.locationPath(name(), id));
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        StringJoiner links = new StringJoiner(",");
        for (Resource child : children()) {
            links.add("<" + child.uri() + ">");
        }
        exchange.respond(Code.CONTENT, links.toString().getBytes(StandardCharsets.UTF_8), ContentFormat.LINK_FORMAT);
    }
}
