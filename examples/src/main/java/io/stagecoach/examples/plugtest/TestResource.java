package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;

/**
 * {@code /test} (conformance §3.1, TD_COAP_CORE_01..08): GET answers {@code REQINFO} and the token
 * in at most 64 bytes; POST creates nothing but answers 2.01 with three Location-Path options;
 * PUT 2.04 (4.12 with If-None-Match: the resource exists, RFC 7252 §5.10.8.2); DELETE 2.02.
 */
final class TestResource extends CoapResource {

    /** So that the GET answer fits one 64-byte block. */
    static final int MAX_GET_PAYLOAD = 64;

    TestResource() {
        super("test");
        title("Default test resource");
        advertiseContentFormats(ContentFormat.TEXT_PLAIN);
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        String info = PlugtestText.reqInfo(exchange.request());
        if (!exchange.request().token().isEmpty()) {
            info += "\nToken: " + exchange.request().token().toHex();
        }
        byte[] payload = PlugtestText.truncate(info, MAX_GET_PAYLOAD);
        exchange.respond(Code.CONTENT, r -> r.payload(payload, ContentFormat.TEXT_PLAIN).maxAge(30));
    }

    @Override
    public void handlePOST(CoapExchange exchange) {
        exchange.respond(Code.CREATED, r -> r.locationPath("location1", "location2", "location3"));
    }

    @Override
    public void handlePUT(CoapExchange exchange) {
        exchange.respond(exchange.options().ifNoneMatch() ? Code.PRECONDITION_FAILED : Code.CHANGED);
    }

    @Override
    public void handleDELETE(CoapExchange exchange) {
        exchange.respond(Code.DELETED);
    }
}
