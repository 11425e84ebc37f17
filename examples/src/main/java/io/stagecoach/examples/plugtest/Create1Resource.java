package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;

/**
 * {@code /create1} (§3.19, TD_COAP_CORE_23): created by PUT. It always sits in the tree so that the
 * PUT reaches it, but while it "does not exist" it is hidden from discovery and GET answers 4.04.
 * PUT with If-None-Match on an existing representation: 4.12 (RFC 7252 §5.10.8.2); without
 * Content-Format: 4.00; else stored, 2.01 if new, 2.04 if replaced. DELETE removes it again.
 */
final class Create1Resource extends CoapResource {

    private Representation stored;

    Create1Resource() {
        super("create1");
        setVisible(false);
    }

    @Override
    public synchronized void handlePUT(CoapExchange exchange) {
        boolean exists = stored != null;
        if (exists && exchange.options().ifNoneMatch()) {
            exchange.respond(Code.PRECONDITION_FAILED);
            return;
        }
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
            return;
        }
        stored = new Representation(exchange.payload(), format);
        setVisible(true);
        exchange.respond(exists ? Code.CHANGED : Code.CREATED);
    }

    @Override
    public synchronized void handleGET(CoapExchange exchange) {
        Representation r = stored;
        if (r == null) {
            exchange.respond(Code.NOT_FOUND);
        } else {
            exchange.respond(Code.CONTENT, r.body(), r.contentFormat());
        }
    }

    @Override
    public synchronized void handleDELETE(CoapExchange exchange) {
        stored = null;
        setVisible(false);
        exchange.respond(Code.DELETED);
    }
}
