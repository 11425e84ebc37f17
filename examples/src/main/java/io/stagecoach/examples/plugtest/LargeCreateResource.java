package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.Resource;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/**
 * {@code /large-create} (§3.7, TD_COAP_BLOCK_05): POST (Content-Format required, else 4.00) creates
 * child {@code /large-create/<n>} holding the uploaded body and answers 2.01 with Location-Path
 * {@code large-create}, {@code <n>}; GET lists the children in link-format (RFC 6690). Each child
 * answers GET with its body and DELETE by removing itself.
 *
 * <p>At most {@link #MAX_CHILDREN} children live at a time, so that clients cannot make the server
 * keep an unbounded number of bodies (each at most the block-wise body limit). A POST beyond
 * answers 5.03 Service Unavailable with Max-Age {@link #RETRY_AFTER_SECONDS} (RFC 7252 §5.9.3.4:
 * the server cannot take the request now; Max-Age says when to retry) and a diagnostic payload;
 * any client may DELETE a child to make room. Not 4.13, which is about the size of this request's
 * payload, nor 4.00: the request is well formed.
 */
final class LargeCreateResource extends CoapResource {

    /** Children alive at a time. */
    static final int MAX_CHILDREN = 100;
    /** Max-Age of the 5.03 answer to a POST when the resource is full. */
    static final long RETRY_AFTER_SECONDS = 60;
    static final String FULL = MAX_CHILDREN + " children exist; DELETE one first";

    /** The last child number given out; a long never wraps, so names are never reused. */
    private long last;

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
        String id;
        synchronized (this) { // the count and the add, atomically: concurrent POSTs stop at the cap
            if (children().size() >= MAX_CHILDREN) {
                id = null;
            } else {
                id = Long.toString(++last);
                add(newChild(id, new Representation(exchange.payload(), format)));
            }
        }
        if (id == null) {
            exchange.respond(Code.SERVICE_UNAVAILABLE, r -> r.maxAge(RETRY_AFTER_SECONDS).payload(FULL));
        } else {
            exchange.respond(Code.CREATED, r -> r.locationPath(name(), id));
        }
    }

    private static CoapResource newChild(String id, Representation body) {
        CoapResource child = new CoapResource(id);
        child.onGet(ex -> ex.respond(Code.CONTENT, body.body(), body.contentFormat()));
        child.onDelete(ex -> {
            child.delete();
            ex.respond(Code.DELETED);
        });
        return child;
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
