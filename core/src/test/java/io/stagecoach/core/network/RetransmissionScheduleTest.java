package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.CongestionControlMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The retransmission schedule of a client endpoint under each congestion-control strategy, read
 * from the virtual times at which a scripted server receives each copy of a CON request. The
 * network has no delay, so a copy is received when it is sent and every interval is exact to the
 * nanosecond: a copy expected at {@code t} must not arrive at {@code t - 1 ns} and must arrive at
 * {@code t} ({@link #copyAt}). Formulas: RFC 7252 §4.2, draft-ietf-core-cocoa-03 §4.2, Järvinen
 * et al., ANRW '18 §4.2, as summarised in docs/congestion-control-strategies.md.
 */
class RetransmissionScheduleTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;
    /** ACK_TIMEOUT and ACK_TIMEOUT × ACK_RANDOM_FACTOR (RFC 7252 §4.8 defaults). */
    private static final long ACK_TIMEOUT = 2 * S;
    private static final long ACK_TIMEOUT_MAX = 3 * S;
    /** MAX_RTO: every backed-off timeout is truncated here (paper §3.3). */
    private static final long MAX_RTO = 60 * S;

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 23);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final List<Object> outcomes = new ArrayList<>();
    private long failedAt = -1;
    private CoapEndpoint client;
    private LockstepPeer server;

    private void start(CongestionControlMode mode, int maxRetransmit) throws Exception {
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.CONGESTION_CONTROL, mode).set(CoapConfig.MAX_RETRANSMIT, maxRetransmit).build();
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .config(config).scheduler(clock).executor(Runnable::run).random(new SplittableRandom(31)).build();
        client.start();
        server = LockstepPeer.attach("server", net, serverAddress, clock).defaultDestination(client.address());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            server.expectNothing();
            assertEquals(0, client.openExchanges(), "exchanges left in the store");
            client.destroy();
            server.close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    // ------------------------------------------------------------------ script steps

    /** The client sends CON GET /cc; returns when the server received the first copy. */
    private long send() {
        Request.Builder b = Request.get().peer(EndpointContext.of(serverAddress));
        b.options().uriPath("cc");
        client.sendRequest(b.build(), new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                outcomes.add(response);
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                failedAt = clock.nanoTime();
                outcomes.add(cause);
            }
        });
        return server.expect().type(Type.CON).code(Code.GET).path("cc").storeMid("m").storeToken("t")
                .receivedAtNanos();
    }

    /** The next copy, whenever it comes within {@code max}; its time is exact, the clock may be up to 1 ms past. */
    private long copyWithin(Duration max) {
        return server.expectWithin(max).type(Type.CON).sameMid("m").receivedAtNanos();
    }

    /** The next copy arrives at exactly {@code at}: not a nanosecond earlier. Leaves the clock at {@code at}. */
    private long copyAt(long at) {
        clock.advance(Duration.ofNanos(at - 1 - clock.nanoTime()));
        server.expectNothing();
        clock.advance(Duration.ofNanos(1));
        long t = server.expect().type(Type.CON).sameMid("m").receivedAtNanos();
        assertEquals(at, t);
        return t;
    }

    /** The server answers now with a piggybacked 2.05, which ends the exchange. */
    private void answer() {
        int before = outcomes.size();
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).payload("ok").go();
        clock.runDue();
        assertEquals(before + 1, outcomes.size());
        assertInstanceOf(Response.class, outcomes.get(before));
    }

    /** A clean exchange answered after {@code rtt}. */
    private void cleanExchange(long rtt) {
        send();
        clock.advance(Duration.ofNanos(rtt));
        answer();
    }

    /** Nothing happens until {@code at}; then the exchange fails with ExchangeTimeoutException. */
    private void timesOutAt(long at) {
        clock.advance(Duration.ofNanos(at - 1 - clock.nanoTime()));
        assertEquals(-1, failedAt, "failed before " + at);
        clock.advance(Duration.ofNanos(1));
        assertEquals(at, failedAt);
        assertInstanceOf(ExchangeTimeoutException.class, outcomes.get(outcomes.size() - 1));
        server.expectNothingFor(Duration.ofSeconds(200));
    }

    private static void assertIn(long min, long max, long actual, String what) {
        assertTrue(actual >= min && actual <= max, what + " = " + actual + " ns, expected in [" + min + ", " + max + "]");
    }

    // ------------------------------------------------------------------ DEFAULT

    /**
     * RFC 7252 §4.2 with MAX_RETRANSMIT = 4.
     * <pre>
     * client                         server (never answers)
     *  | CON GET MID=m -------------->|  t0
     *  | CON GET MID=m -------------->|  t1 = t0 + T        T in [ACK_TIMEOUT, ACK_TIMEOUT x 1.5] = [2 s, 3 s]
     *  | CON GET MID=m -------------->|  t2 = t1 + 2T       timeout doubles
     *  | CON GET MID=m -------------->|  t3 = t2 + 4T
     *  | CON GET MID=m -------------->|  t4 = t3 + 8T       4th retransmission
     *  X ExchangeTimeoutException          |  t4 + 16T           its timeout expires: give up
     * </pre>
     */
    @Test
    void defaultDoublesARandomInitialTimeoutAndGivesUpAfterMaxRetransmit() throws Exception {
        start(CongestionControlMode.DEFAULT, 4);
        long t0 = send();
        long t1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        long t = t1 - t0;
        assertIn(ACK_TIMEOUT, ACK_TIMEOUT_MAX, t, "first timeout");
        long t2 = copyAt(t1 + 2 * t);
        long t3 = copyAt(t2 + 4 * t);
        long t4 = copyAt(t3 + 8 * t);
        timesOutAt(t4 + 16 * t);
        assertEquals(4, client.counters().get(Counter.RETRANSMISSIONS));
        assertEquals(1, client.counters().get(Counter.TIMEOUTS));
    }

    /**
     * MAX_RETRANSMIT = 2: two retransmissions, then the third timeout (4T) ends the exchange.
     * <pre>
     *  | CON GET MID=m -->|  t0, t0 + T, t0 + 3T
     *  X ExchangeTimeoutException "after 2 retransmissions"  at t0 + 7T
     * </pre>
     */
    @Test
    void maxRetransmitIsConfigurable() throws Exception {
        start(CongestionControlMode.DEFAULT, 2);
        long t0 = send();
        long t1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        long t = t1 - t0;
        long t2 = copyAt(t1 + 2 * t);
        timesOutAt(t2 + 4 * t);
        assertEquals(2, client.counters().get(Counter.RETRANSMISSIONS));
        String message = ((Throwable) outcomes.get(0)).getMessage();
        assertTrue(message.contains("after 2 retransmissions"), message);
    }

    // ------------------------------------------------------------------ CoCoA

    /**
     * CoCoA learns from one clean exchange (draft-ietf-core-cocoa-03 §4.2): the server answers
     * after exactly 100 ms, so the strong estimator's first sample R = 100 ms gives SRTT = R,
     * RTTVAR = R/2, E_strong = SRTT + 4 RTTVAR = 300 ms, and RTO = 0.5 E_strong + 0.5 x 2 s =
     * 1.15 s. The next exchange's first timeout is dithered in [RTO, 1.5 RTO] = [1.15 s, 1.725 s]
     * (below DEFAULT's 2 s floor), and since 1 s <= RTO <= 3 s the backoff factor is 2.
     * <pre>
     *  | CON GET --->|  t=0           |<--- ACK 2.05   t=100 ms  (RTT sample)
     *  | CON GET --->|  t0            (never answered)
     *  | CON GET --->|  t0 + T        T in [1.15 s, 1.725 s]
     *  | CON GET --->|  + 2T, + 4T, + 8T
     *  X timeout       + 16T
     * </pre>
     */
    @Test
    void cocoaStartsTheNextExchangeFromTheMeasuredRto() throws Exception {
        start(CongestionControlMode.COCOA, 4);
        cleanExchange(100 * MS);
        long rto = 1_150 * MS;
        long t0 = send();
        long t1 = copyWithin(Duration.ofMillis(1_726));
        long t = t1 - t0;
        assertIn(rto, rto * 3 / 2, t, "first timeout after a 100 ms RTT");
        long t2 = copyAt(t1 + 2 * t);
        long t3 = copyAt(t2 + 4 * t);
        long t4 = copyAt(t3 + 8 * t);
        timesOutAt(t4 + 16 * t);
    }

    /**
     * The variable backoff factor: after two clean 100 ms exchanges the RTO falls below 1 s and
     * each timeout triples. Second strong sample (RFC 6298 §2.3): RTTVAR = 3/4 x 50 ms + 1/4 x
     * |100 - 100| ms = 37.5 ms, SRTT = 100 ms, E_strong = 100 + 4 x 37.5 = 250 ms; RTO = 0.5 x
     * 250 ms + 0.5 x 1.15 s = 700 ms. First timeout T in [700 ms, 1050 ms], VBF(700 ms) = 3.
     * <pre>
     *  | CON GET --->|  t0 (never answered)
     *  |             |  t0 + T, + 3T, + 9T, + 27T
     *  X timeout        + min(81T, MAX_RTO = 60 s)
     * </pre>
     */
    @Test
    void cocoaTriplesTimeoutsBelowOneSecond() throws Exception {
        start(CongestionControlMode.COCOA, 4);
        cleanExchange(100 * MS);
        cleanExchange(100 * MS);
        long rto = 700 * MS;
        long t0 = send();
        long t1 = copyWithin(Duration.ofMillis(1_051));
        long t = t1 - t0;
        assertIn(rto, rto * 3 / 2, t, "first timeout after two 100 ms RTTs");
        long t2 = copyAt(t1 + 3 * t);
        long t3 = copyAt(t2 + 9 * t);
        long t4 = copyAt(t3 + 27 * t);
        timesOutAt(t4 + Math.min(81 * t, MAX_RTO));
    }

    // ------------------------------------------------------------------ Default full backoff

    /**
     * DEFAULT_FULL_BACKOFF_1: the backed-off timeout in force when an exchange that retransmitted
     * got its answer is the next exchange's first timeout; a clean exchange drops it.
     * <pre>
     *  ex1 | t0, t0 + T1, + 2T1 (answered)   2 retransmissions: timeout in force 4T1 is carried
     *  ex2 | t0', t0' + 4T1 (answered)       first timeout = 4T1 exactly; carries 8T1
     *  ex3 | answered at once                 clean: the carried timeout is dropped
     *  ex4 | t0'', t0'' + T4                  T4 fresh in [2 s, 3 s]
     * </pre>
     */
    @Test
    void defaultFullBackoff1CarriesTheBackedOffTimeoutUntilACleanExchange() throws Exception {
        start(CongestionControlMode.DEFAULT_FULL_BACKOFF_1, 4);
        long t0 = send();
        long t1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        long t = t1 - t0;
        copyAt(t1 + 2 * t);
        answer();

        long u0 = send();
        copyAt(u0 + 4 * t);
        answer();

        cleanExchange(0);

        long v0 = send();
        long v1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        assertIn(ACK_TIMEOUT, ACK_TIMEOUT_MAX, v1 - v0, "first timeout after a clean exchange");
        answer();
    }

    /**
     * DEFAULT_FULL_BACKOFF_2: each clean exchange halves the carried timeout; once half of it
     * would fall below ACK_TIMEOUT (2 s) it is dropped.
     * <pre>
     *  ex1 | t0, + T1, + 2T1 (answered)       carries 4T1
     *  ex2 | clean                             carries 4T1 / 2 = 2T1
     *  ex3 | clean                             carries T1 (>= 2 s: kept)
     *  ex4 | t, t + T1 (answered)              first timeout = T1 exactly; carries 2T1
     *  ex5 | clean                             carries T1
     *  ex6 | clean                             T1 / 2 < 2 s: dropped
     *  ex7 | t, t + T7                         T7 fresh in [2 s, 3 s]
     * </pre>
     */
    @Test
    void defaultFullBackoff2HalvesTheCarriedTimeoutAfterEachCleanExchange() throws Exception {
        start(CongestionControlMode.DEFAULT_FULL_BACKOFF_2, 4);
        long t0 = send();
        long t1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        long t = t1 - t0;
        copyAt(t1 + 2 * t);
        answer();

        cleanExchange(0);
        cleanExchange(0);
        long u0 = send();
        copyAt(u0 + t);
        answer();

        cleanExchange(0);
        cleanExchange(0);
        long v0 = send();
        long v1 = copyWithin(Duration.ofSeconds(3).plusMillis(1));
        assertIn(ACK_TIMEOUT, ACK_TIMEOUT_MAX, v1 - v0, "first timeout once the carried one is dropped");
        answer();
    }

    // ------------------------------------------------------------------ CoCoA full backoff

    /**
     * COCOA_FULL_BACKOFF_1 carries the backed-off timeout like Default-FB1, on top of CoCoA's
     * estimators; a clean exchange drops it and the first timeout follows the RTO again.
     * <pre>
     *  ex1 | clean, RTT 100 ms                 RTO = 1.15 s (strong sample)
     *  ex2 | t0, + T2, + 2T2 (answered)        T2 in [1.15 s, 1.725 s], VBF 2; carries 4T2; weak sample 3T2
     *  ex3 | t0', t0' + 4T2 (answered)         first timeout = 4T2 exactly; weak sample 4T2
     *  ex4 | clean, RTT 100 ms                 drops the carried timeout; strong sample
     *  ex5 | t0'', t0'' + T5 (answered)        T5 in [RTO, 1.5 RTO], RTO from the four samples
     * </pre>
     */
    @Test
    void cocoaFullBackoff1CarriesTheBackedOffTimeoutUntilACleanExchange() throws Exception {
        start(CongestionControlMode.COCOA_FULL_BACKOFF_1, 4);
        Cocoa model = new Cocoa();
        cleanExchange(100 * MS);
        model.strong(100 * MS);

        long t0 = send();
        long t1 = copyWithin(Duration.ofMillis(1_726));
        long t = t1 - t0;
        assertIn(model.rto, model.rto * 3 / 2, t, "first timeout");
        long t2 = copyAt(t1 + 2 * t);
        answer();
        model.weak(t2 - t0); // two retransmissions: weak estimator, RTT from the first transmission

        long u0 = send();
        long u1 = copyAt(u0 + 4 * t);
        answer();
        model.weak(u1 - u0);

        cleanExchange(100 * MS);
        model.strong(100 * MS);

        long v0 = send();
        long v1 = copyWithin(Duration.ofSeconds(4));
        assertIn(model.rto, Math.round(model.rto * 1.5), v1 - v0, "first timeout after the clean exchange");
        answer();
    }

    /**
     * COCOA_FULL_BACKOFF_2: after an exchange with one or two retransmissions the next exchange
     * starts from max(first timeout, updated RTO) backed off once per retransmission with the VBF
     * of that maximum (paper §4.2, decision 6 of docs/congestion-control-strategies.md).
     * <pre>
     *  ex1 | clean, RTT 100 ms                 RTO = 1.15 s
     *  ex2 | t0, + T2, + 2T2 (answered)        weak sample R = 3T2: E_weak = R + R/2,
     *      |                                   RTO' = E_weak/4 + 3/4 x 1.15 s, in [2.16 s, 2.81 s] > T2
     *  ex3 | t0', t0' + 4 RTO' (answered)      base = RTO', VBF(RTO') = 2, two backoffs: 4 RTO'
     * </pre>
     */
    @Test
    void cocoaFullBackoff2CarriesTheBackedOffUpdatedRto() throws Exception {
        start(CongestionControlMode.COCOA_FULL_BACKOFF_2, 4);
        Cocoa model = new Cocoa();
        cleanExchange(100 * MS);
        model.strong(100 * MS);

        long t0 = send();
        long t1 = copyWithin(Duration.ofMillis(1_726));
        long t = t1 - t0;
        long t2 = copyAt(t1 + 2 * t);
        answer();
        model.weak(t2 - t0);
        assertTrue(model.rto > t && model.rto > S && model.rto <= 3 * S, "RTO' " + model.rto);

        long u0 = send();
        copyAt(u0 + 4 * model.rto);
        answer();
    }

    /**
     * draft-ietf-core-cocoa-03 §4.2 in integer nanoseconds: RFC 6298 §2 estimators (alpha 1/8,
     * beta 1/4, G = 1 ms) with K = 4 (strong) and K = 1 (weak), and the overall RTO update
     * RTO = 0.5 E_strong + 0.5 RTO or RTO = 0.25 E_weak + 0.75 RTO. Initial values 2 s (§4.2.1).
     */
    private static final class Cocoa {
        long rto = 2 * S;
        private final long[] strong = {0, 0, 0};
        private final long[] weak = {0, 0, 0};

        void strong(long rtt) {
            rto = estimate(strong, 4, rtt) / 2 + rto / 2;
        }

        void weak(long rtt) {
            rto = estimate(weak, 1, rtt) / 4 + rto - rto / 4;
        }

        /** state = {SRTT, RTTVAR, samples}; returns E = SRTT + max(G, K x RTTVAR). */
        private static long estimate(long[] state, int k, long rtt) {
            if (state[2]++ == 0) {
                state[0] = rtt;
                state[1] = rtt / 2;
            } else {
                state[1] = (3 * state[1] + Math.abs(state[0] - rtt)) / 4;
                state[0] = (7 * state[0] + rtt) / 8;
            }
            return state[0] + Math.max(MS, k * state[1]);
        }
    }
}
