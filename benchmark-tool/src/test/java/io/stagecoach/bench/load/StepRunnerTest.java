package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.echo.EchoServer;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real sockets on loopback against the in-process echo server; each run is about a second. */
@Timeout(30)
class StepRunnerTest {

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
            LoadSpec s = spec(echo.address().getPort(), Duration.ofSeconds(5), Duration.ofSeconds(1));
            StepResult r = new StepRunner(s, echo.address()).run(10, StepListener.NONE);
            echo.close(); // joins the echo thread: it counts an answer just after sending it

            assertEquals(10, r.concurrency());
            assertTrue(r.completed() > 0, "sent CON GETs to the echo, got " + r.completed() + " 2.05 answers");
            assertEquals(0, r.timeouts(), "timeouts against a local echo");
            assertEquals(0, r.errors());
            assertEquals(r.completed(), r.latencyUs().getTotalCount());
            assertTrue(r.durationS() >= 0.9 && r.durationS() < 3, "measured window " + r.durationS());
            assertTrue(echo.answered() >= r.completed(), "echo answered " + echo.answered());
        }
    }

    @Test
    void postAndNonRequestsAreAnsweredToo() throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            // A 200 ms warm-up absorbs the start of the loop threads, so the 300 ms window is all load.
            LoadSpec post = spec(echo.address().getPort(), Duration.ofSeconds(5), Duration.ofMillis(300))
                    .withTimes(Duration.ofMillis(200), Duration.ofMillis(300), Duration.ZERO)
                    .withRequest("post", 32, true);
            StepResult p = new StepRunner(post, echo.address()).run(4, StepListener.NONE);
            assertTrue(p.completed() > 0, "POST (2.04 answers) completed " + p.completed());
            assertEquals(0, p.errors());

            LoadSpec non = post.withRequest("GET", 0, false);
            StepResult n = new StepRunner(non, echo.address()).run(4, StepListener.NONE);
            assertTrue(n.completed() > 0, "NON GET (NON 2.05 answers matched by token) completed " + n.completed());
            assertEquals(0, n.timeouts());
        }
    }

    @Test
    void silentServerYieldsTimeoutsAndNoCompletions() throws Exception {
        // A bound socket that never reads: every request times out after 200 ms, and the
        // client then sends the next one (no retransmission).
        try (DatagramChannel silent = DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress addr = (InetSocketAddress) silent.getLocalAddress();
            LoadSpec s = spec(addr.getPort(), Duration.ofMillis(200), Duration.ofMillis(1000));
            StepResult r = new StepRunner(s, addr).run(5, StepListener.NONE);

            assertEquals(0, r.completed());
            assertEquals(0, r.errors());
            // 5 clients × 1 s / (200 ms + up to one 10 ms scan) ≈ 25 timeouts. No request can time
            // out before 200 ms, so 5 per client per started 200 ms of the measured window (which a
            // late wake-up lengthens) is a hard ceiling; the floor only says each client timed out
            // at least once (a loaded CI machine may deschedule the loop for a while).
            long ceiling = 5L * ((long) Math.floor(r.durationS() / 0.2) + 1);
            assertTrue(r.timeouts() >= 5 && r.timeouts() <= ceiling,
                    "timeouts in " + r.durationS() + " s: " + r.timeouts() + " (ceiling " + ceiling + ")");
        }
    }

    @Test
    void retransmittingClientsCompleteAgainstAServerThatLosesEveryFirstCopy() throws Exception {
        try (DropFirstCopyServer lossy = DropFirstCopyServer.start()) {
            LoadSpec s = spec(lossy.address().getPort(), Duration.ofSeconds(5), Duration.ofSeconds(1))
                    .withRetransmit(Duration.ofMillis(20));
            StepResult r = new StepRunner(s, lossy.address()).run(5, StepListener.NONE);

            // Every answered request was sent twice: the lost first copy, then the retransmission
            // after 20 ms, which the server answers. The window may cut off up to one request per client.
            assertTrue(r.completed() > 0, "completed " + r.completed() + " (server dropped " + lossy.dropped() + ")");
            assertEquals(0, r.timeouts(), "retransmission recovers each loss well before the 5 s timeout");
            assertEquals(0, r.errors());
            // Typically one each; a late answer may cost a further copy, never more than MAX_RETRANSMIT 4.
            assertTrue(r.retransmissions() >= r.completed() - 5 && r.retransmissions() <= 4 * (r.completed() + 5),
                    r.retransmissions() + " retransmissions for " + r.completed() + " answers");
            assertTrue(lossy.maxCopies() >= 2, "the server saw the same MID twice");
        }
    }

    @Test
    void withoutRetransmitTheSameLossIsATimeout() throws Exception {
        try (DropFirstCopyServer lossy = DropFirstCopyServer.start()) {
            LoadSpec s = spec(lossy.address().getPort(), Duration.ofMillis(200), Duration.ofMillis(600));
            StepResult r = new StepRunner(s, lossy.address()).run(3, StepListener.NONE);

            assertEquals(0, r.completed(), "no client sends a second copy, so nothing is answered");
            assertEquals(0, r.retransmissions());
            assertTrue(r.timeouts() > 0, "timeouts " + r.timeouts());
            assertEquals(1, lossy.maxCopies(), "each MID arrived once");
        }
    }

    @Test
    void silentServerSeesFourRetransmissionsOfEachRequestWithTheSameMidAndToken() throws Exception {
        try (DatagramChannel silent = DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            silent.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 1 << 20);
            InetSocketAddress addr = (InetSocketAddress) silent.getLocalAddress();
            // Retransmissions at 10, 30, 70, 150 ms; the timeout at 300 ms ends each request.
            LoadSpec s = spec(addr.getPort(), Duration.ofMillis(300), Duration.ofMillis(1000))
                    .withRetransmit(Duration.ofMillis(10));
            StepResult r = new StepRunner(s, addr).run(3, StepListener.NONE);

            assertEquals(0, r.completed());
            assertTrue(r.timeouts() > 0, "timeouts " + r.timeouts());
            // At most four per timed-out request, plus up to 4 per client for requests cut by the
            // window's edges. (A loop stall can let a timeout overtake a due retransmission, so
            // fewer is possible; the per-MID count below shows all four are sent.)
            assertTrue(r.retransmissions() <= 4 * r.timeouts() + 4 * 3,
                    r.retransmissions() + " retransmissions for " + r.timeouts() + " timeouts");

            java.util.Map<Long, java.util.Set<Integer>> tokens = new java.util.HashMap<>();
            java.util.Map<Long, Integer> copies = new java.util.HashMap<>();
            silent.configureBlocking(false);
            java.nio.ByteBuffer rx = java.nio.ByteBuffer.allocate(2048);
            InetSocketAddress from;
            while ((from = (InetSocketAddress) silent.receive(rx.clear())) != null) {
                long key = (long) from.getPort() << 16 | (rx.getShort(2) & 0xFFFF);
                copies.merge(key, 1, Integer::sum);
                tokens.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(rx.getInt(4));
            }
            int most = copies.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            assertEquals(5, most, "first transmission + MAX_RETRANSMIT 4 copies per MID, never more: " + copies);
            assertTrue(tokens.values().stream().allMatch(t -> t.size() == 1), "one token per MID");
        }
    }

    /**
     * A server that answers every CON request with an empty ACK (same MID) and never with a
     * response: a retransmitting client stops retransmitting once ACKed (RFC 7252 §4.2) and waits
     * for its timeout. Sent: CON GETs, retransmit after 1 s, timeout 2 s; seen: timeouts and fewer
     * retransmissions than requests. Without the stop each request would be sent again at 1 s (one
     * retransmission per timeout); with it only a copy whose ACK was held up over 1 s is.
     */
    @Test
    void emptyAckStopsRetransmission() throws Exception {
        io.stagecoach.elements.concurrent.NamedThreadFactory threads = new io.stagecoach.elements.concurrent.NamedThreadFactory("test-empty-ack", true);
        try (DatagramChannel acker = DatagramChannel.open()) {
            acker.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress addr = (InetSocketAddress) acker.getLocalAddress();
            threads.newThread(() -> {
                java.nio.ByteBuffer rx = java.nio.ByteBuffer.allocate(2048);
                try {
                    while (true) {
                        InetSocketAddress from = (InetSocketAddress) acker.receive(rx.clear());
                        java.nio.ByteBuffer ack = java.nio.ByteBuffer.allocate(4);
                        ack.put((byte) 0x60).put((byte) 0).putShort(rx.getShort(2)).flip();
                        acker.send(ack, from);
                    }
                } catch (java.io.IOException closed) {
                    // the test closed the channel: done
                }
            }).start();
            LoadSpec s = spec(addr.getPort(), Duration.ofSeconds(2), Duration.ofMillis(2500))
                    .withRetransmit(Duration.ofSeconds(1));
            StepResult r = new StepRunner(s, addr).run(3, StepListener.NONE);

            assertEquals(0, r.completed());
            assertTrue(r.timeouts() > 0, "timeouts " + r.timeouts());
            assertTrue(r.retransmissions() < r.timeouts(),
                    "ACKed requests are not retransmitted: " + r.retransmissions() + " retransmissions for "
                    + r.timeouts() + " timeouts");
        }
        assertTrue(threads.joinAll(Duration.ofSeconds(5)), "server thread ended");
    }
}
