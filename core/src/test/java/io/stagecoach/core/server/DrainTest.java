package io.stagecoach.core.server;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CoapServer#drain}: a node asked to leave refuses new exchanges with 5.03 and Max-Age,
 * serves what continues, finishes what is in flight, and ends every observation with 5.03 and
 * Max-Age (RFC 7641 §3.2, RFC 7252 §5.9.3.4). Scripted client on the virtual clock, protocol
 * stage inline; coap.overload-max-age is 7 s so its value is recognisable on the wire.
 */
class DrainTest {

    private static final long MAX_AGE = 7;

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint endpoint;
    private CoapServer server;
    private LockstepPeer client;
    private final CoapResource obs = CoapResource.named("obs").setObservable(true)
            .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload("v").maxAge(60)));
    private final CoapResource plain = CoapResource.named("plain").onGet(ex -> ex.respond("plain"));
    /** Accepts (empty ACK) and answers 500 ms later: a separate response in flight (RFC 7252 §5.2.2). */
    private final CoapResource slow = CoapResource.named("slow").onGet(ex -> {
        ex.accept();
        clock.schedule(() -> ex.respond("late"), ofMillis(500));
    });
    private final CoapResource large = CoapResource.named("large").onGet(ex -> ex.respond("0123456789abcdef0123456789abcdef"));

    @BeforeEach
    void start() throws Exception {
        endpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .config(CoapConfig.builder().set(CoapConfig.AMPLIFICATION_FACTOR, 0)
                        .set(CoapConfig.OVERLOAD_MAX_AGE, ofSeconds(MAX_AGE))
                        .set(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE, 16)
                        .set(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE, 16).build())
                .executor(Runnable::run).random(new SplittableRandom(5)).build();
        server = CoapServer.builder().endpoint(endpoint).build();
        server.add(obs, plain, slow, large);
        server.start();
        client = LockstepPeer.attach("client", net, new InetSocketAddress("10.0.0.2", 40000), clock)
                .defaultDestination(serverAddress);
    }

    @AfterEach
    void stop() {
        client.expectNothing();
        assertEquals(0, endpoint.observeRelations(), "relations left");
        server.destroy();
        client.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * <pre>
     * client                                      server
     *   | CON GET /obs Obs=0 T=0b ------------------->|  observer
     *   |<------------------- ACK 2.05 Obs=n "v"      |
     *   | CON GET /slow T=5a ------------------------>|  handler accepts, answers in 500 ms
     *   |<--------------------------------- empty ACK |
     *   |                                    drain(10 s)
     *   |<------------- CON 5.03 Max-Age=7 T=0b (no Observe)   final notification
     *   | CON GET /plain T=77 ----------------------->|
     *   |<---------------- ACK 5.03 Max-Age=7 T=77    |  refused: a new exchange
     *   | ACK ---------------------------------------->|  (of the 5.03 notification)
     *   |<------------------------- CON 2.05 "late"   |  the separate response still comes
     *   | ACK ---------------------------------------->|  drain complete: true
     * </pre>
     */
    @Test
    void refusesNewRequestsTellsObserversAndFinishesWhatIsInFlight() {
        client.con().get().mid(1).token("0b").path("obs").observe(0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).token("0b").hasOption(OptionNumber.OBSERVE);
        client.con().get().mid(2).token("5a").path("slow").go();
        client.expect().emptyAck(2);

        CompletableFuture<Boolean> drained = server.drain(ofSeconds(10));
        assertTrue(server.isDraining());
        assertEquals(drained, server.drain(ofSeconds(10)), "a second call returns the same drain");
        client.expect().type(Type.CON).code(Code.SERVICE_UNAVAILABLE).token("0b").noOption(OptionNumber.OBSERVE)
                .optionUint(OptionNumber.MAX_AGE, MAX_AGE).storeMid("final");
        assertEquals(0, obs.observerCount(), "the observer is forgotten with its final notification");

        client.con().get().mid(3).token("77").path("plain").go();
        client.expect().type(Type.ACK).mid(3).code(Code.SERVICE_UNAVAILABLE).token("77")
                .optionUint(OptionNumber.MAX_AGE, MAX_AGE);
        client.ack(client.mid("final")).go();
        client.advance(ofMillis(100));
        assertFalse(drained.isDone(), "the separate response of /slow is still to come");

        client.expectWithin(ofMillis(500)).type(Type.CON).code(Code.CONTENT).token("5a").payload("late")
                .storeMid("late");
        client.advance(ofMillis(100));
        assertFalse(drained.isDone(), "the separate response waits for its ACK (RFC 7252 4.2)");
        client.ack(client.mid("late")).go();
        client.advance(ofMillis(50));
        assertTrue(drained.isDone());
        assertTrue(drained.join(), "everything in flight finished");
        assertEquals(1, server.counters().get(0).refusedDraining());
    }

    /** A block-wise download under way continues on the draining node; a new one is refused (RFC 7959 §2.3). */
    @Test
    void continuationBlocksAreServedNewTransfersAreNot() {
        client.con().get().mid(1).token("01").path("large").go();
        client.expect().type(Type.ACK).code(Code.CONTENT).block2(0, true, 0);

        CompletableFuture<Boolean> drained = server.drain(ofSeconds(10));
        client.con().get().mid(2).token("02").path("large").block2(1, false, 0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).block2(1, false, 0).payload("0123456789abcdef");
        client.con().get().mid(3).token("03").path("large").go();
        client.expect().type(Type.ACK).code(Code.SERVICE_UNAVAILABLE).optionUint(OptionNumber.MAX_AGE, MAX_AGE);
        client.advance(ofMillis(50));
        assertTrue(drained.join());
    }

    /**
     * An observer that never acknowledges its final notification holds the drain until the
     * deadline: the drain then completes with {@code false}, and stopping the server is the
     * caller's decision.
     */
    @Test
    void aDeadlinePassedCompletesWithFalse() {
        client.con().get().mid(1).token("0c").path("obs").observe(0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).token("0c");
        CompletableFuture<Boolean> drained = server.drain(ofSeconds(2));
        client.expect().type(Type.CON).code(Code.SERVICE_UNAVAILABLE).token("0c");
        client.advance(ofMillis(1990));
        assertFalse(drained.isDone());
        client.advance(ofMillis(30));
        assertFalse(drained.join(), "the unacknowledged notification was still in flight");
        server.stop(); // the retransmissions end with the endpoint
        while (client.waiting() > 0) {
            client.expect().type(Type.CON).code(Code.SERVICE_UNAVAILABLE).token("0c"); // retransmitted meanwhile
        }
    }

    /** Nothing in flight: the drain completes at its first check; stop and start serve again. */
    @Test
    void anIdleServerDrainsAtOnceAndServesAgainAfterARestart() {
        CompletableFuture<Boolean> drained = server.drain(ofSeconds(5));
        client.advance(ofMillis(20));
        assertTrue(drained.join());
        server.stop();
        assertThrows(IllegalStateException.class, () -> server.drain(ofSeconds(1)), "only a running server drains");
        server.start();
        assertFalse(server.isDraining());
        client.con().get().mid(9).token("09").path("plain").go();
        client.expect().type(Type.ACK).code(Code.CONTENT).payload("plain");
    }
}
