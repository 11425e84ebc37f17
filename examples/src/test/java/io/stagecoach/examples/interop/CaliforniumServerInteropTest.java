package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.californium.core.CoapResource;
import org.eclipse.californium.core.CoapServer;
import org.eclipse.californium.core.coap.CoAP.ResponseCode;
import org.eclipse.californium.core.coap.MediaTypeRegistry;
import org.eclipse.californium.core.config.CoapConfig;
import org.eclipse.californium.core.server.resources.CoapExchange;
import org.eclipse.californium.elements.config.Configuration;
import org.eclipse.californium.elements.config.UdpConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Stagecoach's client against Eclipse Californium 3.13.0, a server written here: {@code /hello}
 * (GET), {@code /echo} (POST answers 2.04 with the payload reversed), {@code /counter} (observable,
 * changed by the test) and {@code /large} (3000 bytes; Californium's 128-byte blocks).
 */
@Tag("interop")
class CaliforniumServerInteropTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static CoapServer server;
    private static CounterResource counter;
    private static CoapEndpoint endpoint;
    private static final List<Response> received = new CopyOnWriteArrayList<>();
    private static String base;
    static final String LARGE = "0123456789".repeat(300);

    /** Observable: its value is a number the test increments. */
    static final class CounterResource extends CoapResource {
        volatile int value;

        CounterResource() {
            super("counter");
            setObservable(true);
            getAttributes().setObservable();
        }

        @Override
        public void handleGET(CoapExchange exchange) {
            exchange.respond(ResponseCode.CONTENT, Integer.toString(value), MediaTypeRegistry.TEXT_PLAIN);
        }

        void increment() {
            value++;
            changed();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        CoapConfig.register();
        UdpConfig.register();
        Configuration config = Configuration.createStandardWithoutFile()
                .set(CoapConfig.PREFERRED_BLOCK_SIZE, 128)
                .set(CoapConfig.MAX_MESSAGE_SIZE, 128);
        org.eclipse.californium.core.network.CoapEndpoint cfEndpoint = new org.eclipse.californium.core.network.CoapEndpoint.Builder()
                .setInetSocketAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .setConfiguration(config).build();
        server = new CoapServer(config);
        server.addEndpoint(cfEndpoint);
        counter = new CounterResource();
        server.add(new CoapResource("hello") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, "hello from Californium", MediaTypeRegistry.TEXT_PLAIN);
            }
        }, new CoapResource("echo") {
            @Override
            public void handlePOST(CoapExchange exchange) {
                String reversed = new StringBuilder(exchange.getRequestText()).reverse().toString();
                exchange.respond(ResponseCode.CHANGED, reversed, MediaTypeRegistry.TEXT_PLAIN);
            }
        }, counter, new CoapResource("large") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, LARGE, MediaTypeRegistry.TEXT_PLAIN);
            }
        });
        server.start();
        base = "coap://127.0.0.1:" + cfEndpoint.getAddress().getPort();

        endpoint = CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())
                .interceptor(new MessageInterceptor() {
                    @Override
                    public void receiveResponse(Response response) {
                        received.add(response);
                    }
                }).build();
        endpoint.start();
    }

    @AfterAll
    static void stop() {
        if (endpoint != null) {
            endpoint.destroy();
        }
        if (server != null) {
            server.destroy();
        }
    }

    private static CoapClient client(String path) {
        return new CoapClient(base + path, endpoint).timeout(WAIT);
    }

    @Test
    void get() {
        CoapResponse r = client("/hello").get();
        assertEquals(Code.CONTENT, r.code());
        assertEquals("hello from Californium", r.payloadText());
        assertEquals(ContentFormat.TEXT_PLAIN, r.contentFormat());
        assertEquals(Type.ACK, r.advanced().type(), "piggybacked");
    }

    @Test
    void post() {
        CoapResponse r = client("/echo").post("stagecoach", ContentFormat.TEXT_PLAIN);
        assertEquals(Code.CHANGED, r.code());
        assertEquals("hcaocegats", r.payloadText());
    }

    @Test
    void block2Of3000BytesIn128ByteBlocks() {
        received.clear();
        CoapResponse r = client("/large").get();
        assertEquals(Code.CONTENT, r.code());
        assertEquals(LARGE, r.payloadText());
        // Distinct block numbers: a block request our client retransmitted (Californium's answer
        // late by ACK_TIMEOUT on a loaded machine) is answered twice with the same block.
        List<Integer> blocks = received.stream().filter(m -> m.options().block2() != null)
                .map(m -> m.options().block2().num()).distinct().sorted().toList();
        assertEquals(java.util.stream.IntStream.range(0, 24).boxed().toList(), blocks,
                "3000 bytes in 128-byte blocks: blocks 0..23");
    }

    @Test
    void observeThreeChanges() throws Exception {
        BlockingQueue<CoapResponse> seen = new LinkedBlockingQueue<>();
        CoapObserveRelation relation = client("/counter").observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                seen.add(response);
            }

            @Override
            public void onError(Throwable error) {
                seen.add(new CoapResponse(Response.builder(Code.INTERNAL_SERVER_ERROR).payload(error.toString()).build(),
                        Duration.ZERO));
            }
        });
        CoapResponse first = seen.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(first != null && first.options().observe() >= 0, "registration answer with Observe: " + first);
        int start = Integer.parseInt(first.payloadText());
        for (int i = 1; i <= 3; i++) {
            counter.increment();
            CoapResponse n = seen.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(n != null, "notification " + i + " within " + WAIT);
            assertEquals(Integer.toString(start + i), n.payloadText(), "notification " + i);
            assertTrue(n.options().observe() >= 0, "notification carries Observe");
        }
        CoapResponse cancel = relation.proactiveCancel().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(Code.CONTENT, cancel.code());
        assertEquals(-1, cancel.options().observe(), "deregistration answer has no Observe (RFC 7641 §3.6)");
        assertEquals(0, counter.getObserverCount(), "Californium removed the relation");
    }
}
