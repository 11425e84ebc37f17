package io.stagecoach.core.network;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Duplicate detection at the endpoint (RFC 7252 §4.5) in each {@link DeduplicationMode}, with a
 * scripted client sending the copies. The handler answers "n=&lt;how often it ran&gt;", so a
 * payload tells whether an answer came from the store or from a second run.
 */
class DeduplicationModesTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.9", 40001);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 17);
    private final List<Exchange> held = new ArrayList<>();
    private int handled;
    private boolean hold;
    private CoapEndpoint server;
    private LockstepPeer client;

    private void start(DeduplicationMode mode) throws Exception {
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.DEDUPLICATION_MODE, mode).build();
        server = CoapEndpoint.builder().connector(net.connector(SERVER)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(4)).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                handled++;
                if (hold) {
                    held.add(exchange); // answered later by the test: separate response
                } else {
                    server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("n=" + handled).build());
                }
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        server.start();
        client = LockstepPeer.attach("client", net, CLIENT, clock).defaultDestination(SERVER);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            client.expectNothing();
            assertEquals(0, server.openExchanges(), "exchanges left in the store");
            server.destroy();
            client.close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private void conGet(int mid) {
        client.con().get().mid(mid).token("0a").path("r").go();
    }

    /**
     * STRICT remembers a CON for EXCHANGE_LIFETIME (247 s) after receipt; the periodic sweep
     * (every DEDUP_SWEEP_INTERVAL = 10 s) then forgets it and the same MID is a new message.
     * <pre>
     * client                                  server
     *  | CON GET /r MID=0x1234 T=0a --------->|  t=0      handler runs
     *  |<------------ ACK 2.05 MID=0x1234 "n=1"|
     *  | CON GET /r MID=0x1234 T=0a --------->|  t=246 s  duplicate
     *  |<------------ the same bytes           |           handler does not run
     *  |                                       |  t=250 s  sweep drops the entry (expired at 247 s)
     *  | CON GET /r MID=0x1234 T=0a --------->|  t=257 s  new message
     *  |<------------ ACK 2.05 MID=0x1234 "n=2"|
     * </pre>
     */
    @Test
    void strictAnswersAConDuplicateFromTheStoreForTheExchangeLifetime() throws Exception {
        start(DeduplicationMode.STRICT);
        conGet(0x1234);
        byte[] first = client.expect().type(Type.ACK).code(Code.CONTENT).mid(0x1234).payload("n=1").datagram().bytes();
        client.advance(ofSeconds(246));
        conGet(0x1234);
        byte[] second = client.expect().datagram().bytes();
        assertArrayEquals(first, second, "a duplicate gets the stored ACK byte for byte");
        assertEquals(1, handled, "handler ran once");
        assertEquals(1, server.counters().get(Counter.DUPLICATES));
        assertEquals(1, server.dedupEntries());

        client.advance(ofSeconds(247 + 10 - 246));
        assertEquals(0, server.dedupEntries(), "swept after the lifetime");
        conGet(0x1234);
        client.expect().type(Type.ACK).mid(0x1234).payload("n=2");
        assertEquals(2, handled);
    }

    /**
     * STRICT remembers a NON for NON_LIFETIME (145 s); a duplicate gets the same NON response
     * (same MID, same bytes) again, so that a client whose response was lost can still get it.
     * <pre>
     *  | NON GET /r MID=0x2000 T=0a --------->|  t=0
     *  |<------------ NON 2.05 MID=m "n=1"     |
     *  | NON GET /r MID=0x2000 T=0a --------->|  t=144 s  duplicate
     *  |<------------ NON 2.05 MID=m "n=1"     |           the same bytes; handler does not run
     *  |                                       |  t=150 s  sweep drops the entry (expired at 145 s)
     *  | NON GET /r MID=0x2000 T=0a --------->|  t=155 s  new message
     *  |<------------ NON 2.05 MID=m' "n=2"    |
     * </pre>
     */
    @Test
    void strictAnswersANonDuplicateWithTheSameNonResponseForTheNonLifetime() throws Exception {
        start(DeduplicationMode.STRICT);
        client.non().get().mid(0x2000).token("0a").path("r").go();
        byte[] first = client.expect().type(Type.NON).code(Code.CONTENT).payload("n=1").storeMid("m")
                .datagram().bytes();
        client.advance(ofSeconds(144));
        client.non().get().mid(0x2000).token("0a").path("r").go();
        assertArrayEquals(first, client.expect().type(Type.NON).sameMid("m").datagram().bytes());
        assertEquals(1, handled);

        client.advance(ofSeconds(145 + 10 - 144));
        assertEquals(0, server.dedupEntries(), "swept after NON_LIFETIME");
        client.non().get().mid(0x2000).token("0a").path("r").go();
        assertNotEquals(client.mid("m"), client.expect().type(Type.NON).payload("n=2").message().mid(),
                "a new response with a new MID");
        assertEquals(2, handled);
    }

    /**
     * STRICT after a separate response: the request's answer on record is the empty ACK, which
     * every later duplicate gets; the handler never runs again.
     * <pre>
     *  | CON GET /r MID=0x3000 T=0a --------->|  handler holds the request
     *  |<------------ ACK MID=0x3000 (empty)   |  after SEPARATE_ACK_DELAY (200 ms)
     *  |<------------ CON 2.05 MID=m T=0a      |  the handler answers
     *  | ACK MID=m -------------------------->|  exchange complete
     *  | CON GET /r MID=0x3000 T=0a --------->|  duplicate
     *  |<------------ ACK MID=0x3000 (empty)   |
     * </pre>
     */
    @Test
    void strictAnswersADuplicateOfASeparateResponseRequestWithTheEmptyAck() throws Exception {
        start(DeduplicationMode.STRICT);
        separateResponseExchange(0x3000);
        conGet(0x3000);
        client.expect().emptyAck(0x3000);
        assertEquals(1, handled);
    }

    /**
     * IDEMPOTENT_RELAXED (§4.5 lets a server relax deduplication for idempotent requests): a GET is
     * forgotten once answered, so its duplicate runs the handler again; a POST is remembered.
     * <pre>
     *  | CON GET /r MID=0x4000 T=0a --------->|
     *  |<------------ ACK 2.05 "n=1"           |
     *  | CON GET /r MID=0x4000 T=0a --------->|  duplicate of a completed GET: processed again
     *  |<------------ ACK 2.05 "n=2"           |
     *  | CON POST /r MID=0x4001 T=0b -------->|
     *  |<------------ ACK 2.05 "n=3"           |
     *  | CON POST /r MID=0x4001 T=0b -------->|  duplicate of a POST: from the store
     *  |<------------ the same bytes ("n=3")   |
     * </pre>
     */
    @Test
    void relaxedProcessesAGetDuplicateAgainButAnswersAPostDuplicateFromTheStore() throws Exception {
        start(DeduplicationMode.IDEMPOTENT_RELAXED);
        conGet(0x4000);
        client.expect().type(Type.ACK).mid(0x4000).payload("n=1");
        assertEquals(0, server.dedupEntries(), "a completed GET is not remembered");
        conGet(0x4000);
        client.expect().type(Type.ACK).mid(0x4000).payload("n=2");
        assertEquals(2, handled, "the GET duplicate ran the handler again");

        client.con().post().mid(0x4001).token("0b").path("r").payload("x").go();
        byte[] first = client.expect().type(Type.ACK).mid(0x4001).payload("n=3").datagram().bytes();
        client.con().post().mid(0x4001).token("0b").path("r").payload("x").go();
        assertArrayEquals(first, client.expect().datagram().bytes());
        assertEquals(3, handled, "the POST duplicate did not run the handler");
        assertEquals(1, server.dedupEntries(), "the POST stays for EXCHANGE_LIFETIME");
    }

    /**
     * IDEMPOTENT_RELAXED keeps a GET while it is in flight: copies arriving before the empty ACK
     * get nothing (the answer is pending), copies after it get the empty ACK again, however many;
     * once the separate response is acknowledged the GET is forgotten.
     * <pre>
     *  | CON GET /r MID=0x3000 T=0a --------->|  t=0       handler holds the request
     *  | CON GET /r MID=0x3000 T=0a --------->|  t=100 ms  in flight: no answer
     *  |<------------ ACK MID=0x3000 (empty)   |  t=200 ms
     *  | CON GET /r MID=0x3000 T=0a --------->|  (three times)
     *  |<------------ ACK MID=0x3000 (empty)   |  each time; handler still ran once
     *  |<------------ CON 2.05 MID=m T=0a      |  the handler answers
     *  | ACK MID=m -------------------------->|  exchange complete: the GET is forgotten
     *  | CON GET /r MID=0x3000 T=0a --------->|  processed again (handler answers at once)
     *  |<------------ ACK 2.05 MID=0x3000      |
     * </pre>
     */
    @Test
    void relaxedAnswersAnInFlightDuplicateWithTheEmptyAckAgain() throws Exception {
        start(DeduplicationMode.IDEMPOTENT_RELAXED);
        hold = true;
        conGet(0x3000);
        client.advance(ofMillis(100));
        conGet(0x3000);
        client.expectNothing();
        client.advance(ofMillis(100));
        client.expect().emptyAck(0x3000);
        for (int i = 0; i < 3; i++) {
            conGet(0x3000);
            client.expect().emptyAck(0x3000);
        }
        assertEquals(1, handled, "no copy ran the handler again");
        assertEquals(4, server.counters().get(Counter.DUPLICATES));

        server.respond(held.get(0), Response.forRequest(held.get(0).request(), Code.CONTENT).payload("late").build());
        client.expect().type(Type.CON).code(Code.CONTENT).token("0a").payload("late").storeMid("m");
        client.ack(client.mid("m")).go();
        client.expectNothing();
        assertEquals(0, server.dedupEntries(), "released with its exchange");

        hold = false;
        conGet(0x3000);
        client.expect().type(Type.ACK).code(Code.CONTENT).mid(0x3000).payload("n=2");
    }

    /**
     * OFF remembers nothing: every copy, CON or NON, GET or POST, runs the handler.
     * <pre>
     *  | CON GET /r MID=0x5000 ---->|  |<---- ACK "n=1"
     *  | CON GET /r MID=0x5000 ---->|  |<---- ACK "n=2"
     *  | CON POST /r MID=0x5001 --->|  |<---- ACK "n=3"
     *  | CON POST /r MID=0x5001 --->|  |<---- ACK "n=4"
     *  | NON GET /r MID=0x5002 ---->|  |<---- NON "n=5"
     *  | NON GET /r MID=0x5002 ---->|  |<---- NON "n=6"
     * </pre>
     */
    @Test
    void offRunsTheHandlerForEveryDuplicate() throws Exception {
        start(DeduplicationMode.OFF);
        conGet(0x5000);
        client.expect().type(Type.ACK).mid(0x5000).payload("n=1");
        conGet(0x5000);
        client.expect().type(Type.ACK).mid(0x5000).payload("n=2");
        for (int n = 3; n <= 4; n++) {
            client.con().post().mid(0x5001).token("0b").path("r").go();
            client.expect().type(Type.ACK).mid(0x5001).payload("n=" + n);
        }
        for (int n = 5; n <= 6; n++) {
            client.non().get().mid(0x5002).token("0c").path("r").go();
            client.expect().type(Type.NON).payload("n=" + n);
        }
        assertEquals(6, handled);
        assertEquals(0, server.counters().get(Counter.DUPLICATES));
        assertEquals(0, server.dedupEntries());
    }

    /** CON GET held by the handler, empty ACK, separate CON response, ACK from the client. */
    private void separateResponseExchange(int mid) {
        hold = true;
        conGet(mid);
        client.expectNothing();
        client.advance(ofMillis(200));
        client.expect().emptyAck(mid);
        Exchange exchange = held.remove(0);
        server.respond(exchange, Response.forRequest(exchange.request(), Code.CONTENT).payload("late").build());
        client.expect().type(Type.CON).code(Code.CONTENT).token("0a").payload("late").storeMid("m");
        client.ack(client.mid("m")).go();
        client.expectNothing();
        hold = false;
    }
}
