package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The serialization rule of {@link Exchange}: work on one exchange never runs on two threads at
 * once ({@link Exchange#execute}), and {@link Exchange#assertOwned()} detects code that breaks it.
 */
class ExchangeSerializationTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    private static final int EXCHANGES = 24;
    private static final int ACK_COPIES = 16;
    private static final int RESPONSE_COPIES = 8;

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 99);
    private CoapEndpoint client;
    private SimulatedConnector server;

    @AfterEach
    void stop() {
        if (client != null) {
            client.destroy();
            server.destroy();
            assertEquals(0, client.openExchanges(), "exchanges left in the store");
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * A client endpoint with a real protocol pool of 4 threads. Two probe layers, one above and
     * one below the reliability layer, record for every call which exchange it is for and whether
     * another thread is inside the same exchange at that moment.
     * <pre>
     * client (4 protocol threads)                   server (raw connector)
     *  | 24 x CON GET, distinct MIDs and tokens ----->|
     *  |<---- 16 copies of the empty ACK of each      |  interleaved: the copies of one exchange
     *  |                                              |  are spread over all 4 threads
     *  |<---- 8 copies of a CON 2.05 separate response per exchange (same token, distinct MIDs)
     *  | ACK / RST for each copy -------------------->|
     * </pre>
     * No call sees another thread inside its exchange, {@code assertOwned} never throws, a plain
     * (unsynchronized) per-exchange counter loses no update, and each exchange delivers exactly
     * one response.
     */
    @Test
    void noTwoThreadsWorkOnOneExchangeAtOnce() throws Exception {
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.PROTOCOL_THREADS, 4).set(CoapConfig.PROTOCOL_QUEUE_CAPACITY, 100_000)
                .set(CoapConfig.NSTART, EXCHANGES).build();
        Probe above = new Probe(0);
        Probe below = new Probe(EXCHANGES * ACK_COPIES);
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .config(config).scheduler(clock)
                .layers(s -> s.addAbove(LayerStack.RELIABILITY, "probe-above", above)
                        .addBelow(LayerStack.RELIABILITY, "probe-below", below)).build();
        client.start();
        List<Message> requests = new ArrayList<>();
        UdpMessageParser parser = new UdpMessageParser();
        server = net.connector(SERVER);
        server.setRawDataReceiver(raw -> {
            try {
                requests.add(parser.parse(raw.bytes()));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        server.start();

        CountDownLatch responses = new CountDownLatch(EXCHANGES);
        AtomicInteger delivered = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < EXCHANGES; i++) {
            Request.Builder get = Request.get().peer(EndpointContext.of(SERVER));
            get.options().uriPath("e" + i);
            client.sendRequest(get.build(), new Exchange.Listener() {
                @Override
                public void onResponse(Exchange exchange, Response response) {
                    delivered.incrementAndGet();
                    responses.countDown();
                }

                @Override
                public void onFailure(Exchange exchange, Throwable cause) {
                    failure.set(cause);
                }
            });
        }
        clock.runDue();
        assertEquals(EXCHANGES, requests.size(), "all requests out at once (NSTART = " + EXCHANGES + ")");
        List<Message> originals = List.copyOf(requests); // retransmissions may follow

        UdpMessageSerializer serializer = new UdpMessageSerializer();
        for (int copy = 0; copy < ACK_COPIES; copy++) {
            for (Message request : originals) {
                send(serializer.serialize(EmptyMessage.of(Type.ACK, request.mid())));
            }
        }
        // Delivers the ACKs to the pool and, 3 s later, fires the retransmission timers of the
        // exchanges whose ACKs are still queued: timers race the ACKs on the same exchanges.
        clock.advance(Duration.ofSeconds(3));
        assertTrue(below.emptyAcks.await(30, TimeUnit.SECONDS),
                "every empty ACK reached its exchange; left " + below.emptyAcks.getCount());

        int mid = 0x4000;
        for (int copy = 0; copy < RESPONSE_COPIES; copy++) {
            for (Message request : originals) {
                send(serializer.serialize(Response.builder(Code.CONTENT).type(Type.CON).mid(mid++)
                        .token(request.token()).payload("r").build()));
            }
        }
        clock.runDue();
        assertTrue(responses.await(30, TimeUnit.SECONDS), "responses left " + responses.getCount());
        client.stop(); // joins the protocol threads: every count below is final
        assertNull(failure.get());
        assertEquals(EXCHANGES, delivered.get(), "one response per exchange, however many copies");

        for (Probe probe : List.of(above, below)) {
            assertEquals(0, probe.overlaps.get(), "calls that found another thread inside their exchange");
            assertEquals(0, probe.notOwned.get(), "calls outside Exchange.execute");
            probe.plain.forEach((exchange, plain) ->
                    assertEquals(probe.atomic.get(exchange).get(), plain[0], "lost updates on " + exchange));
            assertTrue(probe.threads.size() >= 2, "the pool ran the calls on " + probe.threads.size() + " thread(s)");
        }
        assertTrue(below.calls() >= EXCHANGES * (1 + ACK_COPIES + 1), "calls seen: " + below.calls());
    }

    private void send(byte[] datagram) {
        server.send(RawData.outbound(datagram, EndpointContext.of(client.address()), null));
    }

    @Test
    void assertOwnedThrowsOutsideExecute() throws Exception {
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, Request.get().build(), EndpointContext.of(SERVER), 0, null);
        IllegalStateException e = assertThrows(IllegalStateException.class, exchange::assertOwned);
        assertTrue(e.getMessage().contains("outside Exchange.execute"), e.getMessage());
        assertFalse(exchange.isOwned());

        AtomicReference<Object> fromOtherThread = new AtomicReference<>();
        exchange.execute(() -> {
            exchange.assertOwned();
            exchange.execute(exchange::assertOwned); // re-entrant
            exchange.assertOwned();                  // still held after the inner call returns
            Thread other = new Thread(() -> {
                try {
                    exchange.assertOwned();
                    fromOtherThread.set("no exception");
                } catch (IllegalStateException x) {
                    fromOtherThread.set(x);
                }
            }, "test-other");
            other.start();
            join(other);
        });
        assertInstanceOf(IllegalStateException.class, fromOtherThread.get(), "another thread does not hold it");
        assertThrows(IllegalStateException.class, exchange::assertOwned, "released when execute returns");
    }

    /** A second thread calling execute waits until the first has left. */
    @Test
    void executeExcludesOtherThreads() throws Exception {
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, Request.get().build(), EndpointContext.of(SERVER), 0, null);
        CountDownLatch firstInside = new CountDownLatch(1);
        AtomicBoolean firstStillInside = new AtomicBoolean();
        AtomicReference<Boolean> secondSawFirstInside = new AtomicReference<>();
        Thread second = new Thread(() -> exchange.execute(() -> secondSawFirstInside.set(firstStillInside.get())),
                "test-second");
        exchange.execute(() -> {
            firstStillInside.set(true);
            firstInside.countDown();
            second.start();
            // Hold the exchange until the second thread is blocked on it (bounded; no sleep).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (second.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(Thread.State.BLOCKED, second.getState(), "the second thread waits for the exchange");
            firstStillInside.set(false);
        });
        join(second);
        assertEquals(Boolean.FALSE, secondSawFirstInside.get());
    }

    private static void join(Thread t) {
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertFalse(t.isAlive(), t.getName() + " did not finish");
    }

    /**
     * Records every call: the exchange must be held by the calling thread (assertOwned), no other
     * thread may be inside the same exchange (an "inside" count that never exceeds 1, counting
     * nested calls of one thread once), and a plain int per exchange, incremented without
     * synchronization of its own, must end equal to an atomic count of the same calls.
     */
    private static final class Probe extends AbstractLayer {
        final Map<Exchange, AtomicInteger> inside = new ConcurrentHashMap<>();
        final Map<Exchange, int[]> plain = new ConcurrentHashMap<>();
        final Map<Exchange, AtomicInteger> atomic = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger notOwned = new AtomicInteger();
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        final CountDownLatch emptyAcks;
        private final ThreadLocal<Map<Exchange, Integer>> depth = ThreadLocal.withInitial(IdentityHashMap::new);

        Probe(int expectedEmptyAcks) {
            this.emptyAcks = new CountDownLatch(expectedEmptyAcks);
        }

        int calls() {
            return atomic.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        private void enter(Exchange exchange) {
            threads.add(Thread.currentThread());
            try {
                exchange.assertOwned();
            } catch (IllegalStateException e) {
                notOwned.incrementAndGet();
            }
            if (depth.get().merge(exchange, 1, Integer::sum) == 1
                    && inside.computeIfAbsent(exchange, k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            int[] counter = plain.computeIfAbsent(exchange, k -> new int[1]);
            int read = counter[0];
            for (int i = 0; i < 100; i++) {
                Thread.onSpinWait(); // widens the read-modify-write window a racing thread would hit
            }
            counter[0] = read + 1;
            atomic.computeIfAbsent(exchange, k -> new AtomicInteger()).incrementAndGet();
        }

        private void exit(Exchange exchange) {
            Map<Exchange, Integer> mine = depth.get();
            if (mine.merge(exchange, -1, Integer::sum) == 0) {
                mine.remove(exchange);
                inside.get(exchange).decrementAndGet();
            }
        }

        @Override
        public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
            enter(exchange);
            try {
                ctx.sendRequest(exchange, request);
            } finally {
                exit(exchange);
            }
        }

        @Override
        public void sendEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
            enter(exchange);
            try {
                ctx.sendEmpty(exchange, message);
            } finally {
                exit(exchange);
            }
        }

        @Override
        public void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
            enter(exchange);
            try {
                ctx.receiveEmpty(exchange, message);
            } finally {
                exit(exchange);
            }
            if (message.type() == Type.ACK) {
                emptyAcks.countDown();
            }
        }

        @Override
        public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
            enter(exchange);
            try {
                ctx.receiveResponse(exchange, response);
            } finally {
                exit(exchange);
            }
        }
    }
}
