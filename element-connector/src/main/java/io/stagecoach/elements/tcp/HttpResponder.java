package io.stagecoach.elements.tcp;

/**
 * Answers plain HTTP requests that reach a WebSocket server connector on any path other than the
 * CoAP endpoint's ({@code /.well-known/coap}): the hook to serve static files (an explorer page
 * for {@code GET /}) on the same port. Runs on the connection's I/O thread: answer from memory,
 * do not block. Without a responder such requests get 404.
 */
@FunctionalInterface
public interface HttpResponder {

    /** An HTTP answer. */
    record Reply(int status, String contentType, byte[] body) {
        /** 200 with {@code body}. */
        public static Reply ok(String contentType, byte[] body) {
            return new Reply(200, contentType, body);
        }
    }

    /**
     * @param method the request method, e.g. {@code GET}
     * @param path   the request target (path and query as sent)
     * @return the reply, or {@code null} for 404 Not Found
     */
    Reply respond(String method, String path);
}
