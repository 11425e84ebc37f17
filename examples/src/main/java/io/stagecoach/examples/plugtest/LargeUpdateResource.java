package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;

/**
 * {@code /large-update} (§3.6, TD_COAP_BLOCK_04): GET answers the stored body in its format
 * (initially LARGE, text/plain), 4.06 for another Accept; PUT (Content-Format required, else
 * 4.00) replaces it and answers 2.04. Block1 uploads are reassembled by the endpoint.
 */
final class LargeUpdateResource extends CoapResource {

    private volatile Representation stored = Representation.text(PlugtestText.LARGE);

    LargeUpdateResource() {
        super("large-update");
        title("Large resource that can be updated using PUT method");
        resourceType("block");
        maxSizeEstimate(PlugtestText.LARGE_SIZE);
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        Representation r = stored;
        ContentFormat accept = exchange.acceptFormat();
        if (accept != null && !accept.equals(r.contentFormat())) {
            exchange.respond(Code.NOT_ACCEPTABLE);
            return;
        }
        exchange.respond(Code.CONTENT, r.body(), r.contentFormat());
    }

    @Override
    public void handlePUT(CoapExchange exchange) {
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
            return;
        }
        stored = new Representation(exchange.payload(), format);
        exchange.respond(Code.CHANGED);
    }
}
