package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;

/**
 * {@code /large-post} (§3.8, TD_COAP_BLOCK_06): POST of text/plain answers 2.04 with the payload in
 * ASCII upper case. Content-Format missing: 4.00; not 0: 4.15. A 1280-byte upload yields a
 * 1280-byte answer, which the endpoint sends block-wise (two-way transfer, RFC 7959 §3.3).
 */
final class LargePostResource extends CoapResource {

    LargePostResource() {
        super("large-post");
        title("Handle POST with two-way blockwise transfer");
        resourceType("block");
    }

    @Override
    public void handlePOST(CoapExchange exchange) {
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
        } else if (!format.equals(ContentFormat.TEXT_PLAIN)) {
            exchange.respond(Code.UNSUPPORTED_CONTENT_FORMAT);
        } else {
            byte[] body = exchange.payload();
            // ASCII only, byte for byte: the answer has exactly the upload's length.
            for (int i = 0; i < body.length; i++) {
                if (body[i] >= 'a' && body[i] <= 'z') {
                    body[i] -= 'a' - 'A';
                }
            }
            exchange.respond(Code.CHANGED, body, ContentFormat.TEXT_PLAIN);
        }
    }
}
