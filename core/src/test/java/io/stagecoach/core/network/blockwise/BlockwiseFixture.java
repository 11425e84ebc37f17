package io.stagecoach.core.network.blockwise;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.config.Configuration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Shared pieces of the block-wise tests: configurations, bodies, a tiny resource deliverer. */
final class BlockwiseFixture {

    private BlockwiseFixture() {
    }

    static Configuration.Builder config() {
        // these tests script the block-wise and observe mechanics at full size: no amplification
        // limit (RFC 7252 §11.3; tested on its own in security/AmplificationTest)
        return CoapConfig.builder().set(CoapConfig.AMPLIFICATION_FACTOR, 0);
    }

    /** Sends payloads over {@code size} bytes in blocks of {@code size} (the plugtest's B). */
    static Configuration blocks(int size) {
        return config().set(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE, size)
                .set(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE, size).build();
    }

    /** {@code n} deterministic bytes: every position is identifiable, so a misplaced block shows. */
    static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('A' + (i * 7 + i / 26) % 26);
        }
        return b;
    }

    static byte[] slice(byte[] body, int from, int to) {
        return java.util.Arrays.copyOfRange(body, from, Math.min(to, body.length));
    }

    /**
     * The server's upper stage: GET /large returns {@link #large} (CF 0, ETag 0xE1), GET /data?n=N
     * returns {@code body(N)}, PUT stores the body, POST /upper answers 2.04 with the body in upper
     * case, POST /echo answers 2.04 with the body. Counts the requests it sees.
     */
    static final class Resources implements LayerStack.Inbox {
        final CoapEndpoint endpoint;
        final List<Request> seen = new ArrayList<>();
        byte[] large = body(1280);
        boolean etag = true;

        Resources(CoapEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        int getsOf(String path) {
            return (int) seen.stream().filter(r -> r.code() == Code.GET && r.options().uriPathString().equals(path))
                    .count();
        }

        @Override
        public void deliverRequest(Exchange exchange, Request request) {
            seen.add(request);
            String path = request.options().uriPathString();
            Response.Builder r;
            if (request.code() == Code.GET && path.equals("large")) {
                r = Response.forRequest(request, Code.CONTENT).payload(large);
                r.options().contentFormat(ContentFormat.TEXT_PLAIN);
                if (etag) {
                    r.options().addEtag(new byte[] {(byte) 0xE1});
                }
            } else if (request.code() == Code.GET && path.equals("data")) {
                int n = Integer.parseInt(request.options().uriQuery().get(0).substring(2));
                r = Response.forRequest(request, Code.CONTENT).payload(body(n));
                r.options().contentFormat(ContentFormat.OCTET_STREAM);
            } else if (request.code() == Code.PUT) {
                r = Response.forRequest(request, Code.CHANGED);
            } else if (request.code() == Code.POST && path.equals("upper")) {
                String text = new String(request.payload(), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
                r = Response.forRequest(request, Code.CHANGED).payload(text.getBytes(StandardCharsets.US_ASCII));
                r.options().contentFormat(ContentFormat.TEXT_PLAIN);
            } else if (request.code() == Code.POST && path.equals("echo")) {
                r = Response.forRequest(request, Code.CHANGED).payload(request.payload());
            } else {
                r = Response.forRequest(request, Code.NOT_FOUND);
            }
            endpoint.respond(exchange, r.peer(exchange.peer()).build());
        }

        @Override
        public void deliverResponse(Exchange exchange, Response response) {
        }
    }
}
