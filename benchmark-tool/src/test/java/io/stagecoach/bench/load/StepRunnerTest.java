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
            LoadSpec post = spec(echo.address().getPort(), Duration.ofSeconds(5), Duration.ofMillis(300))
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
            // 5 clients × 1 s / (200 ms + up to one 10 ms scan) ≈ 25 timeouts; allow scheduling slack.
            assertTrue(r.timeouts() >= 15 && r.timeouts() <= 30, "timeouts in 1 s: " + r.timeouts());
        }
    }
}
