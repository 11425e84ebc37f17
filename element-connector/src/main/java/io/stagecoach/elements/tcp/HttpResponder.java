package io.stagecoach.elements.tcp;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Answers plain HTTP requests that reach a WebSocket server connector on any path other than the
 * CoAP endpoint's ({@code /.well-known/coap}): the hook to serve static files (an explorer page
 * for {@code GET /}) on the same port. Runs on the connection's I/O thread: answer from memory,
 * do not block. Without a responder such requests get 404.
 */
@FunctionalInterface
public interface HttpResponder {

    /**
     * An HTTP answer: status, {@code Content-Type}, body, and further response headers (e.g.
     * {@code Content-Security-Policy}, {@code Cache-Control}). The connector writes
     * {@code Content-Length} and {@code Connection} itself, so {@code headers} may not name them,
     * nor {@code Content-Type} or {@code Transfer-Encoding}; names must be HTTP tokens and values
     * free of control characters (RFC 9110 §5.1, §5.5), so that no value can split the response.
     */
    record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {

        private static final Set<String> RESERVED =
                Set.of("content-type", "content-length", "connection", "transfer-encoding");

        /** Validates and copies {@code headers}; {@code status} must be 100..599. */
        public Reply {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("HTTP status " + status + " outside 100..599");
            }
            Objects.requireNonNull(contentType, "contentType");
            Objects.requireNonNull(body, "body");
            checkValue("Content-Type", contentType);
            for (Map.Entry<String, String> h : headers.entrySet()) {
                String name = h.getKey();
                if (name.isEmpty() || !name.chars().allMatch(Reply::isTokenChar)) {
                    throw new IllegalArgumentException("header name '" + name + "' is not an HTTP token");
                }
                if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("header " + name + " is written by the connector");
                }
                checkValue(name, h.getValue());
            }
            headers = Map.copyOf(headers);
        }

        /** A reply without further headers. */
        public Reply(int status, String contentType, byte[] body) {
            this(status, contentType, body, Map.of());
        }

        /** 200 with {@code body}. */
        public static Reply ok(String contentType, byte[] body) {
            return new Reply(200, contentType, body);
        }

        private static void checkValue(String name, String value) {
            Objects.requireNonNull(value, name);
            // Visible ASCII, space and tab only: CR/LF would end the header, other controls are invalid.
            for (int i = 0; i < value.length(); i++) {
                char ch = value.charAt(i);
                if ((ch < 0x20 && ch != '\t') || ch >= 0x7f) {
                    throw new IllegalArgumentException("header " + name + " has a control or non-ASCII character");
                }
            }
        }

        private static boolean isTokenChar(int ch) {
            return ch > 0x20 && ch < 0x7f && "\"(),/:;<=>?@[\\]{}".indexOf(ch) < 0;
        }
    }

    /**
     * @param method the request method, e.g. {@code GET}
     * @param path   the request target (path and query as sent)
     * @return the reply, or {@code null} for 404 Not Found
     */
    Reply respond(String method, String path);
}
