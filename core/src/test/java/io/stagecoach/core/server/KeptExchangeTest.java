package io.stagecoach.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A handler may keep its {@link CoapExchange} beyond the call, although the server lets the
 * endpoint reuse the protocol-stage exchange of a request answered inline: the kept object still
 * reads its own request, cannot answer twice (and never answers another request), and a handler
 * that answers later or asked for the exchange keeps the exchange itself. In-memory network,
 * virtual clock, every stage inline on the test thread.
 */
class KeptExchangeTest {

    private static final Duration ONE_WAY = Duration.ofMillis(10);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final List<CoapExchange> kept = new ArrayList<>();
    private final List<Exchange> exchanges = new ArrayList<>();
    private final AtomicReference<CoapExchange> stale = new AtomicReference<>();
    private final AtomicReference<Throwable> staleAnswer = new AtomicReference<>();
    private CoapServer server;
    private CoapEndpoint serverEndpoint;
    private CoapEndpoint clientEndpoint;
    private CoapEndpoint lateClient; // its own peer: NSTART (RFC 7252 §4.7) does not queue the others behind it

    @BeforeEach
    void start() throws Exception {
        net.setDefaultConditions(LinkConditions.builder().delay(ONE_WAY).build());
        serverEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.1", 5683)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(serverEndpoint).build();
        // answers inline with its query argument n, keeping the exchange
        server.add(CoapResource.named("keep").onGet(cx -> {
            kept.add(cx);
            CoapExchange old = stale.getAndSet(null);
            if (old != null) { // a kept, answered exchange tries to answer again during another request
                staleAnswer.set(assertThrows(IllegalStateException.class, () -> old.respond("stale")));
            }
            cx.respond(cx.query("n"));
        }));
        // asks for the exchange while it runs, then answers inline
        server.add(CoapResource.named("ask").onGet(cx -> {
            kept.add(cx);
            exchanges.add(cx.exchange());
            cx.respond(cx.query("n"));
        }));
        // returns without answering: the answer comes later, from the test
        server.add(CoapResource.named("later").onGet(kept::add));
        server.start();
        clientEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).build();
        clientEndpoint.start();
        lateClient = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.3", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(3)).build();
        lateClient.start();
    }

    @AfterEach
    void stop() {
        clock.advance(Duration.ofSeconds(1));
        assertEquals(0, serverEndpoint.openExchanges(), "server exchanges left");
        assertEquals(0, clientEndpoint.openExchanges(), "client exchanges left");
        server.destroy();
        assertEquals(0, lateClient.openExchanges(), "late client exchanges left");
        clientEndpoint.destroy();
        lateClient.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private CompletableFuture<CoapResponse> get(String pathAndQuery) {
        return new CoapClient("coap://10.0.0.1:5683" + pathAndQuery, clientEndpoint).getAsync();
    }

    private CompletableFuture<CoapResponse> getLate(String pathAndQuery) {
        return new CoapClient("coap://10.0.0.1:5683" + pathAndQuery, lateClient).getAsync();
    }

    /**
     * Advances virtual time until {@code f} completes, at most 200 ms: one round trip is 20 ms,
     * and a client sends a request only at its next tick after its previous one was acknowledged.
     */
    private CoapResponse await(CompletableFuture<CoapResponse> f) {
        clock.advance(ONE_WAY.multipliedBy(2));
        for (int ms = 0; ms < 180 && !f.isDone(); ms++) {
            clock.advance(Duration.ofMillis(1));
        }
        assertTrue(f.isDone(), () -> "no answer within 200 ms; server " + serverEndpoint.counters());
        return f.join();
    }

    @Test
    void aKeptExchangeAnsweredInlineStillReadsItsOwnRequestAfterOthersWereServed() {
        for (int n = 1; n <= 5; n++) {
            assertEquals(String.valueOf(n), await(get("/keep?n=" + n)).payloadText());
        }
        for (int n = 1; n <= 5; n++) {
            CoapExchange cx = kept.get(n - 1);
            assertEquals(String.valueOf(n), cx.query("n"), "request " + n);
            assertEquals(String.valueOf(n), cx.request().options().uriQuery().get(0).substring(2));
            assertEquals(Code.GET, cx.method());
            assertEquals(new InetSocketAddress("10.0.0.2", 40000), cx.sourceAddress());
            assertTrue(cx.isAnswered());
            Exchange standIn = cx.exchange();
            assertTrue(standIn.isComplete(), "the exchange ended with the answer");
            assertNull(standIn.failure());
            assertSame(cx.request(), standIn.request(), "the request it answered");
            assertEquals(cx.request().peer(), standIn.peer());
            assertThrows(IllegalStateException.class, () -> cx.respond("again"), "one answer only");
            assertThrows(IllegalStateException.class, cx::accept);
            assertThrows(IllegalStateException.class, cx::reject);
        }
        assertNotSame(kept.get(0).exchange(), kept.get(0).exchange(),
                "a stand-in: the exchange itself was released for reuse");
    }

    @Test
    void aStaleExchangeCannotAnswerTheRequestItsExchangeNowServes() {
        assertEquals("1", await(get("/keep?n=1")).payloadText());
        stale.set(kept.get(0));
        CoapResponse second = await(get("/keep?n=2"));
        assertTrue(staleAnswer.get() instanceof IllegalStateException, "the stale answer was refused");
        assertEquals("2", second.payloadText(), "the request in progress got its own answer");
        assertEquals(Type.ACK, second.advanced().type(), "piggybacked: nothing answered it before");
        assertEquals("1", kept.get(0).query("n"));
    }

    @Test
    void aHandlerThatAskedForTheExchangeKeepsTheExchangeItself() {
        assertEquals("1", await(get("/ask?n=1")).payloadText());
        assertEquals("2", await(get("/keep?n=2")).payloadText());
        assertEquals("3", await(get("/ask?n=3")).payloadText());
        Exchange first = exchanges.get(0);
        assertSame(first, kept.get(0).exchange(), "the same exchange, before and after the call");
        assertSame(kept.get(0).request(), first.request(), "never reused for another request");
        assertTrue(first.isComplete());
        assertNotSame(first, exchanges.get(1));
        assertEquals("3", exchanges.get(1).request().options().uriQuery().get(0).substring(2));
    }

    @Test
    void anAnswerAfterReturningStillReachesItsRequestWhileOthersAreServedInline() {
        CompletableFuture<CoapResponse> pending = getLate("/later?n=1");
        clock.advance(ONE_WAY.multipliedBy(2)); // delivered; the handler returned without answering
        CoapExchange later = kept.get(0);
        for (int n = 2; n <= 4; n++) {
            assertEquals(String.valueOf(n), await(get("/keep?n=" + n)).payloadText());
        }
        later.respond(Code.CONTENT, "late " + later.query("n"));
        CoapResponse r = await(pending);
        assertEquals("late 1", r.payloadText());
        Exchange held = later.exchange();
        assertSame(held, later.exchange(), "the exchange itself: it was never released");
        assertTrue(held.isComplete());
        assertEquals("n=1", held.request().options().uriQuery().get(0));
    }

    @Test
    void acceptedThenAnsweredLater() {
        CompletableFuture<CoapResponse> pending = getLate("/later?n=7");
        clock.advance(ONE_WAY.multipliedBy(2));
        CoapExchange later = kept.get(0);
        later.accept(); // the stack acknowledged it on return already: this one adds nothing
        assertThrows(IllegalStateException.class, later::accept, "accepted once");
        assertEquals("8", await(get("/keep?n=8")).payloadText());
        later.respond("seven");
        assertEquals("seven", await(pending).payloadText());
    }

    @Test
    void anotherThreadReadingAKeptExchangeNeverSeesALaterRequest() throws Exception {
        // each handler publishes its exchange to a reader thread before it answers, so the reader
        // races with the release and reuse of the exchange that ends the call
        AtomicReference<Object[]> latest = new AtomicReference<>();
        server.add(CoapResource.named("race").onGet(cx -> {
            latest.set(new Object[] {cx, cx.request().options().uriQuery().get(0)});
            cx.respond("ok");
        }));
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> wrong = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                Object[] l = latest.get();
                if (l != null) {
                    String seen = ((CoapExchange) l[0]).request().options().uriQuery().get(0);
                    if (!seen.equals(l[1])) {
                        wrong.compareAndSet(null, seen + " instead of " + l[1]);
                    }
                }
            }
        }, "kept-exchange-reader");
        reader.start();
        try {
            for (int n = 1; n <= 2_000; n++) {
                assertEquals("ok", await(get("/race?n=" + n)).payloadText());
            }
        } finally {
            done.set(true);
            reader.join();
        }
        assertNull(wrong.get(), "a kept exchange read another request");
    }
}
