package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The expert layer API end to end, through the published API and the ordinary builders: a layer
 * pair that claims a critical option of its own and transforms the payload
 * ({@link SealingLayerExample}).
 *
 * <pre>
 * client (seal)                                   server (seal)
 *   POST /echo "hello" --sealed(65001, xor)--->    opens; /echo sees "hello"
 *   app sees "hello"   <--sealed(65001, xor)---    2.04 "hello", sealed
 * </pre>
 */
class SealingLayerTest {

    private static final byte[] KEY = {7, 42, -1};
    private static final InetSocketAddress LOOPBACK_ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final List<Request> serverSawRequests = new CopyOnWriteArrayList<>();
    private final List<Response> serverSentResponses = new CopyOnWriteArrayList<>();
    private CoapServer server;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (server != null) {
            // The server completes a piggybacked exchange just after handing its answer to the
            // connector, so the client can hold the answer a moment before: wait, bounded.
            Await.until(() -> server.endpoints().get(0).openExchanges() == 0, Duration.ofSeconds(10));
            assertEquals(0, server.endpoints().get(0).openExchanges(), "server exchanges left");
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Records what crosses the wire at the server (interceptors sit below the layers). */
    private MessageInterceptor wireTap() {
        return new MessageInterceptor() {
            @Override
            public void receiveRequest(Request request) {
                serverSawRequests.add(request);
            }

            @Override
            public void sendResponse(Response response) {
                serverSentResponses.add(response);
            }
        };
    }

    @Test
    void sealedBothWaysOnTheWirePlainToTheApplications() {
        server = CoapServer.builder().udp(LOOPBACK_ANY).interceptor(wireTap())
                .layers(s -> s.addBelow(LayerStack.BLOCKWISE, "seal", new SealingLayerExample.SealLayer(KEY)))
                .build()
                .add(CoapResource.named("echo").onPost(ex -> ex.respond(Code.CHANGED, "echo:" + ex.payloadText())))
                .start();
        try (CoapClient client = SealingLayerExample.client("coap://127.0.0.1:" + server.port() + "/echo", KEY)) {
            CoapResponse r = client.post("hello", ContentFormat.TEXT_PLAIN);
            assertEquals(Code.CHANGED, r.code());
            assertEquals("echo:hello", r.payloadText(), "the client application reads the opened payload");
            assertFalse(r.options().has(SealingLayerExample.SEALED), "the option does not reach the application");
            assertEquals(1, client.endpoint().counters().get("seal.opened"), "the client opened one response");
        }
        Request onWire = serverSawRequests.get(0);
        assertTrue(onWire.options().has(SealingLayerExample.SEALED), "the request carried the sealing option");
        assertNotEquals("hello", onWire.payloadString(), "the payload crossed the wire sealed");
        assertEquals(5, onWire.payloadLength());
        Response back = serverSentResponses.get(0);
        assertTrue(back.options().has(SealingLayerExample.SEALED), "the response carried the sealing option");
        assertFalse(back.payloadString().contains("echo"), "the response payload crossed the wire sealed");
        assertEquals(1, server.endpoints().get(0).counters().get("seal.opened"), "the server opened one request");
        assertEquals(List.of("exchange-cleanup", "observe", "blockwise", "seal", "echo", "token", "reliability"),
                server.endpoints().get(0).layerNames());
    }

    @Test
    void aServerWithoutTheLayerAnswersBadOptionInsteadOfServingASealedRequest() {
        List<String> handled = new CopyOnWriteArrayList<>();
        server = CoapServer.builder().udp(LOOPBACK_ANY).build()
                .add(CoapResource.named("echo").onPost(ex -> {
                    handled.add(ex.payloadText());
                    ex.respond(Code.CHANGED);
                }))
                .start();
        try (CoapClient client = SealingLayerExample.client("coap://127.0.0.1:" + server.port() + "/echo", KEY)) {
            CoapResponse r = client.post("hello", ContentFormat.TEXT_PLAIN);
            assertEquals(Code.BAD_OPTION, r.code(), "critical option 65001 is unrecognized there (RFC 7252 §5.4.1)");
            assertArrayEquals("Unrecognized option 65001".getBytes(StandardCharsets.UTF_8), r.payload());
        }
        assertEquals(List.of(), handled, "the handler never saw the sealed request");
    }

    @Test
    void unsealedRequestsPassThroughTheServerLayer() {
        server = SealingLayerExample.server(LOOPBACK_ANY, KEY).start();
        try (CoapClient plain = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/echo").build()) {
            CoapResponse r = plain.post("plain", ContentFormat.TEXT_PLAIN);
            assertEquals("plain", r.payloadText());
            assertFalse(r.options().has(SealingLayerExample.SEALED), "an unsealed request gets an unsealed answer");
        }
    }
}
