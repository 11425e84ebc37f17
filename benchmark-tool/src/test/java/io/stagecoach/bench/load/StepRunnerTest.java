package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.echo.EchoServer;
import io.stagecoach.bench.load.EventPacedClock.Window;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real sockets on loopback against in-process peers, the step's phases on an
 * {@link EventPacedClock}: each window closes once the peer has seen the answers, requests or
 * retransmissions the test asks for, so what a window holds does not depend on the machine's
 * speed. The bounds below follow from the closed loop (each client has at most one request
 * outstanding), not from timing.
 */
@Timeout(60)
class StepRunnerTest {

    /**
     * A timeout no request reaches on loopback unless the machine stalls for half a minute: the
     * tests that expect no timeout use it, and their windows close in milliseconds.
     */
    private static final Duration NEVER = Duration.ofSeconds(30);

    private static LoadSpec spec(int port, Duration timeout, Duration duration) {
        return LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1:" + port + "/benchmark"))
                .withTimeout(timeout)
                .withTimes(Duration.ZERO, duration, Duration.ZERO)
                .withLoops(2);
    }

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void tenClientsAgainstTheEchoServerComplete() throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(200, "echo answers", echo::answered));
            LoadSpec s = spec(echo.address().getPort(), NEVER, Duration.ofSeconds(1));
            StepResult r = new StepRunner(s, echo.address(), clock).run(10, StepListener.NONE);
            echo.close(); // joins the echo thread: it counts an answer just after sending it

            assertEquals(1, clock.waits(), "no warm-up, a one-second window: one wait");
            assertEquals(1.0, r.durationS(), 1e-9, "the window's length on the step clock");
            assertEquals(10, r.concurrency());
            // The echo counted 200 answers inside the window: at most one of them was sent before it
            // (the echo counts just after sending), at most one per client was still on its way.
            assertTrue(r.completed() >= 200 - 1 - 10, "2.05 answers counted in the window: " + r.completed());
            assertEquals(0, r.timeouts(), "timeouts against a local echo");
            assertEquals(0, r.errors());
            assertEquals(r.completed(), r.latencyUs().getTotalCount());
            assertTrue(echo.answered() >= r.completed(), "echo answered " + echo.answered());
        }
    }

    @Test
    void postAndNonRequestsAreAnsweredAndWarmUpAnswersAreNotCounted() throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(20, "echo answers", echo::answered));
            LoadSpec post = spec(echo.address().getPort(), NEVER, Duration.ofMillis(300))
                    .withTimes(Duration.ofMillis(200), Duration.ofMillis(300), Duration.ZERO)
                    .withRequest("post", 32, true);
            long before = echo.answered();
            StepResult p = new StepRunner(post, echo.address(), clock).run(4, StepListener.NONE);
            long answered = echo.answered() - before;
            assertEquals(2, clock.waits(), "warm-up and window");
            // As above: 20 counted in the window, one maybe sent before it, one per client on its way.
            assertTrue(p.completed() >= 20 - 1 - 4, "POST (2.04 answers) completed " + p.completed());
            // Of the 20 answers sent in the warm-up, at most 4 (one per client) arrived after it ended.
            assertTrue(p.completed() <= answered - (20 - 4),
                    "warm-up answers are not counted: " + p.completed() + " of " + answered + " answers");
            assertEquals(0, p.errors());
            assertEquals(0, p.timeouts());

            LoadSpec non = post.withRequest("GET", 0, false);
            StepResult n = new StepRunner(non, echo.address(), clock).run(4, StepListener.NONE);
            assertTrue(n.completed() >= 20 - 1 - 4, "NON GET (NON 2.05 answers matched by token) completed " + n.completed());
            assertEquals(0, n.errors());
            assertEquals(0, n.timeouts());
        }
    }

    @Test
    void silentServerYieldsTimeoutsAndNoCompletions() throws Exception {
        // Every request times out after 200 ms and the client then sends the next one (no
        // retransmission). The window closes once the clients have sent 15 new requests in it.
        try (ScriptedPeer silent = ScriptedPeer.start(ScriptedPeer.SILENT)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(15, "new requests", silent::requests));
            LoadSpec s = spec(silent.address().getPort(), Duration.ofMillis(200), Duration.ofSeconds(1));
            long begin = System.nanoTime();
            StepResult r = new StepRunner(s, silent.address(), clock).run(5, StepListener.NONE);
            double elapsedS = (System.nanoTime() - begin) / 1e9;

            assertEquals(0, r.completed());
            assertEquals(0, r.errors());
            // A new request follows a timeout. Each client's first one in the window may follow a
            // timeout from before it; every later one follows a timeout inside it.
            assertTrue(r.timeouts() >= 15 - 5, "timeouts " + r.timeouts() + "; " + silent.describe());
            // No request times out before 200 ms, so a client times out at most once per started
            // 200 ms of the real time the whole run took (the window lies inside it).
            long ceiling = 5L * ((long) Math.floor(elapsedS / 0.2) + 1);
            assertTrue(r.timeouts() <= ceiling,
                    "timeouts in " + elapsedS + " s of real time: " + r.timeouts() + " (ceiling " + ceiling + ")");
        }
    }

    @Test
    void retransmittingClientsCompleteAgainstAServerThatLosesEveryFirstCopy() throws Exception {
        try (ScriptedPeer lossy = ScriptedPeer.start(ScriptedPeer.DROP_FIRST_COPY)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(20, "answers to retransmissions",
                    lossy::answered));
            LoadSpec s = spec(lossy.address().getPort(), NEVER, Duration.ofSeconds(1))
                    .withRetransmit(Duration.ofMillis(20));
            StepResult r = new StepRunner(s, lossy.address(), clock).run(5, StepListener.NONE);

            // Every answered request was sent twice: the lost first copy, then the retransmission
            // after 20 ms, which the server answers. 20 answers were sent inside the window.
            assertTrue(r.completed() >= 20 - 5, "completed " + r.completed() + ": " + lossy.describe());
            assertEquals(0, r.timeouts(), "retransmission recovers each loss");
            assertEquals(0, r.errors());
            // Each completed request was retransmitted, inside the window unless it was sent before
            // (one per client); a late answer may cost more copies, never more than MAX_RETRANSMIT 4,
            // and only completed requests and the ones still outstanding (one per client) have any.
            assertTrue(r.retransmissions() >= r.completed() - 5 && r.retransmissions() <= 4 * (r.completed() + 5),
                    r.retransmissions() + " retransmissions for " + r.completed() + " answers");
            assertTrue(lossy.mostCopies() >= 2, "the server saw the same MID twice: " + lossy.describe());
        }
    }

    @Test
    void withoutRetransmitTheSameLossIsATimeout() throws Exception {
        try (ScriptedPeer lossy = ScriptedPeer.start(ScriptedPeer.DROP_FIRST_COPY)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(6, "new requests", lossy::requests));
            LoadSpec s = spec(lossy.address().getPort(), Duration.ofMillis(200), Duration.ofMillis(600));
            StepResult r = new StepRunner(s, lossy.address(), clock).run(3, StepListener.NONE);

            assertEquals(0, r.completed(), "no client sends a second copy, so nothing is answered");
            assertEquals(0, r.retransmissions());
            // 6 new requests in the window: all but each client's first follow a timeout inside it.
            assertTrue(r.timeouts() >= 6 - 3, "timeouts " + r.timeouts());
            assertEquals(1, lossy.mostCopies(), "each MID arrived once: " + lossy.describe());
        }
    }

    @Test
    void silentServerSeesFourRetransmissionsOfEachRequestWithTheSameMidAndToken() throws Exception {
        try (ScriptedPeer silent = ScriptedPeer.start(ScriptedPeer.SILENT)) {
            // Retransmissions at 10, 30, 70, 150 ms; the timeout at 300 ms ends each request. The
            // window closes once 6 new requests came and one request arrived in all 5 copies.
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.all(
                    Window.atLeast(6, "new requests", silent::requests),
                    Window.of("a request in 5 copies", () -> silent.mostCopies() >= 5)));
            LoadSpec s = spec(silent.address().getPort(), Duration.ofMillis(300), Duration.ofSeconds(1))
                    .withRetransmit(Duration.ofMillis(10));
            StepResult r = new StepRunner(s, silent.address(), clock).run(3, StepListener.NONE);

            assertEquals(0, r.completed());
            assertTrue(r.timeouts() >= 6 - 3, "timeouts " + r.timeouts());
            // At most four per timed-out request, plus up to 4 per client for requests cut by the
            // window's edges. (A loop stall can let a timeout overtake a due retransmission, so
            // fewer is possible; the wait above saw all four sent for one request.)
            assertTrue(r.retransmissions() <= 4 * r.timeouts() + 4 * 3,
                    r.retransmissions() + " retransmissions for " + r.timeouts() + " timeouts");
            assertEquals(5, silent.mostCopies(), "first transmission + MAX_RETRANSMIT 4 copies per MID, never more: "
                    + silent.describe());
            assertTrue(silent.oneTokenPerRequest(), "one token per MID: " + silent.describe());
        }
    }

    /**
     * A server that answers every CON request with an empty ACK (same MID) and never with a
     * response: a retransmitting client stops retransmitting once ACKed (RFC 7252 §4.2) and waits
     * for its timeout. Sent: CON GETs, retransmit after 1 s, timeout 2 s; the window closes once 6
     * new requests came, so it holds at least 3 timeouts. Without the stop every request would be
     * sent again at 1 s (one retransmission per timeout); with it only a copy whose ACK was held
     * up for over a second is, so fewer retransmissions than timeouts can only fail if nearly
     * every ACK in the window took that long.
     */
    @Test
    void emptyAckStopsRetransmission() throws Exception {
        try (ScriptedPeer acker = ScriptedPeer.start(ScriptedPeer.EMPTY_ACK)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(6, "new requests", acker::requests));
            LoadSpec s = spec(acker.address().getPort(), Duration.ofSeconds(2), Duration.ofSeconds(1))
                    .withRetransmit(Duration.ofSeconds(1));
            StepResult r = new StepRunner(s, acker.address(), clock).run(3, StepListener.NONE);

            assertEquals(0, r.completed());
            assertTrue(r.timeouts() >= 6 - 3, "timeouts " + r.timeouts());
            assertTrue(r.retransmissions() < r.timeouts(),
                    "ACKed requests are not retransmitted: " + r.retransmissions() + " retransmissions for "
                    + r.timeouts() + " timeouts; " + acker.describe());
        }
    }
}
