package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.util.Arrays;
import java.util.List;

/**
 * {@code /validate} (§3.18, TD_COAP_CORE_21..22): a representation with an ETag derived from it
 * (RFC 7252 §5.10.6).
 * <ul>
 *   <li>GET with a matching ETag: 2.03 Valid, the ETag, no payload (§5.9.1.3); Accept other than
 *       the stored format: 4.06; else 2.05 with payload, format and ETag.</li>
 *   <li>PUT: If-None-Match present, or If-Match present and none of its values matching (an empty
 *       value matches any representation): 4.12, unchanged (§5.10.8); no Content-Format: 4.00;
 *       else stored and 2.04 with the new ETag.</li>
 *   <li>DELETE: back to the initial representation, 2.02.</li>
 * </ul>
 */
final class ValidateResource extends CoapResource {

    static final Representation INITIAL = Representation.text("Resource which varies: initial value");

    private Representation current = INITIAL;

    ValidateResource() {
        super("validate");
        title("Resource which varies");
    }

    @Override
    public synchronized void handleGET(CoapExchange exchange) {
        Representation r = current;
        byte[] etag = r.etag();
        if (contains(exchange.options().etags(), etag)) {
            exchange.respond(Code.VALID, spec -> spec.etag(etag));
            return;
        }
        ContentFormat accept = exchange.acceptFormat();
        if (accept != null && !accept.equals(r.contentFormat())) {
            exchange.respond(Code.NOT_ACCEPTABLE);
            return;
        }
        exchange.respond(Code.CONTENT, spec -> spec.payload(r.body(), r.contentFormat()).etag(etag));
    }

    @Override
    public synchronized void handlePUT(CoapExchange exchange) {
        if (exchange.options().ifNoneMatch() || !ifMatchHolds(exchange.options().ifMatch())) {
            exchange.respond(Code.PRECONDITION_FAILED);
            return;
        }
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
            return;
        }
        current = new Representation(exchange.payload(), format);
        byte[] etag = current.etag();
        exchange.respond(Code.CHANGED, spec -> spec.etag(etag));
    }

    @Override
    public synchronized void handleDELETE(CoapExchange exchange) {
        current = INITIAL;
        exchange.respond(Code.DELETED);
    }

    /** RFC 7252 §5.10.8.1: no If-Match holds; an empty value matches any existing representation. */
    private boolean ifMatchHolds(List<byte[]> ifMatch) {
        if (ifMatch.isEmpty()) {
            return true;
        }
        byte[] etag = current.etag();
        for (byte[] value : ifMatch) {
            if (value.length == 0 || Arrays.equals(value, etag)) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(List<byte[]> values, byte[] wanted) {
        for (byte[] v : values) {
            if (Arrays.equals(v, wanted)) {
                return true;
            }
        }
        return false;
    }
}
