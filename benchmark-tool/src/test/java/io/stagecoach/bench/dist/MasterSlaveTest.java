package io.stagecoach.bench.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.echo.EchoServer;
import io.stagecoach.bench.load.EventPacedClock;
import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Master and slaves in this JVM on loopback TCP, load against the in-process echo server. The
 * slaves time their steps on an {@link EventPacedClock}: a window ends once the slave's clients
 * got 20 answers in it, however loaded the machine.
 */
@Timeout(60)
class MasterSlaveTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static String hostPort(Slave s) {
        return "127.0.0.1:" + s.address().getPort();
    }

    private static LoadSpec spec(EchoServer echo) {
        return LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1:" + echo.address().getPort() + "/benchmark"))
                .withTimes(Duration.ZERO, Duration.ofMillis(800), Duration.ZERO)
                // No request to the in-process echo times out unless the machine stalls for 30 s.
                .withTimeout(Duration.ofSeconds(30))
                .withLoops(1);
    }

    @Test
    void twoSlavesSplitTheClientsAndTheMasterMergesTheirResults() throws Exception {
        try (EchoServer echo = EchoServer.start(ANY_LOOPBACK);
             Slave a = Slave.start(ANY_LOOPBACK, false, EventPacedClock.onAnswers(20));
             Slave b = Slave.start(ANY_LOOPBACK, false, EventPacedClock.onAnswers(20));
             Master m = Master.connect(List.of(hostPort(a), hostPort(b)), log)) {
            StepResult merged = m.runStep(spec(echo), 9, 100);
            List<StepResult> parts = m.lastParts();

            assertEquals(2, parts.size(), log());
            assertEquals(List.of(5, 4), parts.stream().map(StepResult::concurrency).toList(), "9 clients split 5 + 4");
            assertEquals(9, merged.concurrency());
            assertTrue(parts.stream().allMatch(p -> p.completed() >= 20), "each window held 20 answers: " + log());
            assertEquals(parts.get(0).completed() + parts.get(1).completed(), merged.completed(),
                    "merged completed = sum of the slaves'");
            assertEquals(merged.completed(), merged.latencyUs().getTotalCount(), "merged histogram count = completed");
            assertEquals(0, merged.timeouts());
            assertTrue(m.failures().isEmpty(), m.failures().toString());
        }
    }

    @Test
    void aSlaveThatDiesIsReportedAndTheOthersCarryOn() throws Exception {
        try (EchoServer echo = EchoServer.start(ANY_LOOPBACK);
             Slave good = Slave.start(ANY_LOOPBACK, false, EventPacedClock.onAnswers(20));
             ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // The fake slave greets properly, answers TIME, then hangs up when told to RUN.
            Thread t = new Thread(() -> dieOnRun(fake), "stagecoach-test-fake-slave");
            t.start();
            try (Master m = Master.connect(List.of(hostPort(good), "127.0.0.1:" + fake.getLocalPort()), log)) {
                StepResult r = m.runStep(spec(echo), 4, 100);
                assertEquals(2, r.concurrency(), "only the good slave's share is in the result");
                assertTrue(r.completed() >= 20, "the good slave's window held 20 answers: " + log());
                assertEquals(1, m.failures().size(), m.failures().toString());
                assertTrue(m.failures().get(0).contains("closed the connection"), m.failures().get(0));
                assertEquals(1, m.alive());
                assertTrue(log().contains("continuing without it"), log());
            }
            t.join(5_000);
        }
    }

    @Test
    void unreachableSlavesAreReportedAndNoneAtAllFails() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        IOException e = assertThrows(IOException.class,
                () -> Master.connect(List.of("127.0.0.1:" + closedPort), log));
        assertTrue(e.getMessage().contains("no slave reachable"), e.getMessage());
    }

    @Test
    void thirdPartyModeRunsTheCommandAndReturnsOutputAndExitCode() throws Exception {
        try (Slave a = Slave.start(ANY_LOOPBACK, true);
             Slave b = Slave.start(ANY_LOOPBACK, true);
             Master m = Master.connect(List.of(hostPort(a), hostPort(b)), log)) {
            List<Master.ExecOutcome> out = m.exec("echo hi", 10_000, 100);
            assertEquals(2, out.size(), log());
            for (Master.ExecOutcome o : out) {
                assertEquals(0, o.exitCode());
                assertEquals("hi\n", o.output());
            }
            List<Master.ExecOutcome> failing = m.exec("echo oops >&2; exit 3", 10_000, 0);
            assertEquals(3, failing.get(0).exitCode());
            assertEquals("oops\n", failing.get(0).output(), "stderr is returned too");
        }
    }

    @Test
    void aSlaveWithoutAllowExecRefusesCommands() throws Exception {
        try (Slave a = Slave.start(ANY_LOOPBACK, false);
             Master m = Master.connect(List.of(hostPort(a)), log)) {
            List<Master.ExecOutcome> out = m.exec("echo hi", 10_000, 0);
            assertTrue(out.isEmpty());
            assertTrue(m.failures().get(0).contains("--allow-exec"), m.failures().toString());
        }
    }

    @Test
    void aMasterOfAnotherVersionIsTurnedAway() throws Exception {
        try (Slave a = Slave.start(ANY_LOOPBACK, false);
             Socket s = new Socket(InetAddress.getLoopbackAddress(), a.address().getPort())) {
            s.setSoTimeout(5_000);
            PrintWriter w = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
            w.print("HELLO version=coapbench/0\n");
            w.flush();
            String reply = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(reply.startsWith("ERROR ") && reply.contains("unsupported"), "sent coapbench/0, got " + reply);
        }
    }

    private static void dieOnRun(ServerSocket fake) {
        try (Socket s = fake.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("HELLO")) {
                    out.print("HELLO version=" + ControlProtocol.VERSION + " now=0 cores=1\n");
                } else if (line.startsWith("TIME")) {
                    out.print("TIME now=" + System.currentTimeMillis() + "\n");
                } else {
                    return;
                }
                out.flush();
            }
        } catch (IOException e) {
            // test peer: the assertion is on the master's side
        }
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }
}
