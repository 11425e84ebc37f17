package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.nio.charset.StandardCharsets;

/**
 * {@code /multi-format} (§3.15, TD_COAP_CORE_20): GET answers the request's type, method and MID in
 * the format the Accept option asks for (RFC 7252 §5.10.4): text/plain (none or 0), XML (41),
 * JSON (50) or CBOR (60). Any other Accept is answered 4.06 by the server before the handler runs
 * (the formats are declared with {@code contentFormats}).
 *
 * <p>Decision: without Accept the text form prints {@code Accept: none}.
 */
final class MultiFormatResource extends CoapResource {

    MultiFormatResource() {
        super("multi-format");
        title("Resource that exists in different content formats (text/plain utf8 and application/xml)");
        contentFormats(ContentFormat.TEXT_PLAIN, ContentFormat.XML, ContentFormat.JSON, ContentFormat.CBOR);
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        Request r = exchange.request();
        String type = r.type().toString();
        String code = r.code().name();
        int mid = r.mid();
        int accept = exchange.acceptFormat() == null ? -1 : exchange.acceptFormat().number();
        switch (accept) {
            case 41 -> respond(exchange, "<msg type=\"" + type + "\" code=\"" + code + "\" mid=\"" + mid
                    + "\" accept=\"41\"/>", ContentFormat.XML);
            case 50 -> respond(exchange, "{\"type\":\"" + type + "\",\"code\":\"" + code + "\",\"mid\":" + mid
                    + ",\"accept\":50}", ContentFormat.JSON);
            case 60 -> exchange.respond(Code.CONTENT, new MiniCbor().mapHeader(4)
                    .text("type").text(type).text("code").text(code)
                    .text("mid").unsigned(mid).text("accept").unsigned(60).bytes(), ContentFormat.CBOR);
            default -> respond(exchange, "Status type: \"" + type + "\"\nCode: \"" + code + "\"\nMID: " + mid
                    + "\nAccept: " + (accept < 0 ? "none" : Integer.toString(accept)), ContentFormat.TEXT_PLAIN);
        }
    }

    private static void respond(CoapExchange exchange, String text, ContentFormat format) {
        exchange.respond(Code.CONTENT, text.getBytes(StandardCharsets.UTF_8), format);
    }
}
