package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.testutil.TestConfigs;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A client endpoint and a server endpoint over the in-memory network, on the virtual clock. */
class EndpointSmokeTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 7);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint server;
    private CoapEndpoint client;

    @BeforeEach
    void start() throws Exception {
        server = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("hello").build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        server.start();
        client.start();
    }

    @AfterEach
    void stop() {
        assertEquals(0, client.openExchanges(), "client exchanges left");
        assertEquals(0, server.openExchanges(), "server exchanges left");
        client.destroy();
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void conGetIsAnsweredPiggybacked() {
        AtomicReference<Response> got = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Request get = Request.get().peer(EndpointContext.of(serverAddress)).build();
        client.sendRequest(get, listener(got, failed));
        clock.advance(Duration.ZERO);

        assertNull(failed.get(), () -> "client " + client.counters() + " server " + server.counters());
        assertNotNull(got.get(), () -> "no response; client " + client.counters() + " server " + server.counters());
        assertEquals(Type.ACK, got.get().type());
        assertEquals(Code.CONTENT, got.get().code());
        assertEquals("hello", got.get().payloadString());
        assertEquals(8, got.get().token().length());
    }

    @Test
    void unansweredConTimesOutAfterMaxRetransmit() {
        server.stop(); // nothing answers now
        AtomicReference<Response> got = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        client.sendRequest(Request.get().peer(EndpointContext.of(serverAddress)).build(), listener(got, failed));
        // Timeouts T, 2T, 4T, 8T, 16T with T in [2 s, 3 s]: the exchange fails between 62 s and 93 s.
        clock.advance(Duration.ofSeconds(61));
        assertNull(failed.get(), "failed before 31 x ACK_TIMEOUT = 62 s");
        clock.advance(Duration.ofSeconds(33));
        assertInstanceOf(ExchangeTimeoutException.class, failed.get());
        assertEquals(4, client.counters().get(EndpointCounters.Counter.RETRANSMISSIONS));
        assertEquals(1, client.counters().get(EndpointCounters.Counter.TIMEOUTS));
    }

    /**
     * An endpoint built without scheduler or executor owns a real-time timer thread and a pool of
     * protocol threads; stop/start replaces the pool, destroy joins every thread.
     * <pre>
     * client (virtual clock)          owned (own timer + protocol pool)
     *  | CON GET ---------------------->|  handled on a stagecoach-protocol thread
     *  |<--------------- ACK 2.05 "own" |
     *  |           owned.stop(); owned.start()
     *  | CON GET ---------------------->|  handled on the new pool
     *  |<--------------- ACK 2.05 "own" |
     *  |           owned.destroy(): no stagecoach- thread left
     * </pre>
     */
    @Test
    void destroyJoinsTheThreadsTheEndpointOwns() throws Exception {
        InetSocketAddress ownedAddress = new InetSocketAddress("10.0.0.3", 5683);
        // A pool of 2 asked for explicitly: on one core the default runs the protocol inline.
        CoapEndpoint owned = CoapEndpoint.builder().connector(net.connector(ownedAddress))
                .config(TestConfigs.protocolThreads(2)).build();
        java.util.concurrent.Semaphore answered = new java.util.concurrent.Semaphore(0);
        AtomicReference<String> handlerThread = new AtomicReference<>();
        owned.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                handlerThread.set(Thread.currentThread().getName());
                owned.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("own").build());
                answered.release(); // the response is on the (virtual) network by now
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        try {
            owned.start();
            for (int round = 0; round < 2; round++) {
                AtomicReference<Response> got = new AtomicReference<>();
                AtomicReference<Throwable> failed = new AtomicReference<>();
                client.sendRequest(Request.get().peer(EndpointContext.of(ownedAddress)).build(), listener(got, failed));
                clock.runDue(); // hands the request to the owned endpoint's pool
                assertTrue(answered.tryAcquire(10, java.util.concurrent.TimeUnit.SECONDS), "handled in round " + round);
                clock.runDue(); // delivers the answer to the client
                assertEquals("own", got.get().payloadString());
                assertTrue(handlerThread.get().startsWith("stagecoach-protocol-"), handlerThread.get());
                assertFalse(ThreadLeakCheck.liveThreads("stagecoach-timer-").isEmpty(), "the owned timer runs");
                owned.stop();
                assertTrue(ThreadLeakCheck.liveThreads("stagecoach-protocol-").isEmpty(), "stop joined the pool");
                owned.start();
            }
        } finally {
            owned.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static Exchange.Listener listener(AtomicReference<Response> got, AtomicReference<Throwable> failed) {
        return new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                got.set(response);
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                failed.set(cause);
            }
        };
    }
}
