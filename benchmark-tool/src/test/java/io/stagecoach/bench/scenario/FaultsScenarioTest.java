package io.stagecoach.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.cli.CoapBench;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.network.faults.FaultKind;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The scenario end to end against the in-process plugtest server (about 3 s), and its verdict rules. */
@Timeout(60)
class FaultsScenarioTest {

    private static final Set<FaultKind> ALL = EnumSet.allOf(FaultKind.class);

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void smallRunWithFrequentFaultsKeepsServingDrainsAndLeavesNoThread(@TempDir Path dir) throws Exception {
        // 5 % of every kind on 10 clients: in about a second dozens of each fault are injected.
        Path json = dir.resolve("faults.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"faults", "--rate", "0.05", "--clients", "10", "--warmup", "0.3", "--duration", "1",
            "--cooldown", "0.2", "--timeout", "3", "--retransmit", "20", "--json", json.toString()};

        int code = ScenarioMain.run(args, "test", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(6, text.lines().filter(l -> l.startsWith("PASS  ") || l.startsWith("FAIL  ")).count(),
                "six verdict lines in:\n" + text);
        // Machine-independent verdicts: they count, they do not time.
        for (String v : List.of("every dead receive thread replaced", "every injected handler/layer fault answered",
                "exchange store drains to 0", "no stagecoach- thread after destroy()", "phase 2 timeouts == 0")) {
            assertTrue(text.contains("PASS  " + v), v + ":\n" + text);
        }
        // The throughput ratio depends on the machine's load; the exit code must follow the verdicts.
        assertEquals(text.contains("RESULT PASS") ? 0 : 1, code, text);
        String j = Files.readString(json);
        assertTrue(j.contains("\"receiver_restarts\"") && j.contains("\"open_after_wait\": 0")
                && j.contains("\"RECEIVER_DIES\"") && j.contains("\"retransmissions\""), j);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("faults: phase 2"), "progress on stderr");
    }

    @Test
    void runReportsInjectedFaultsAndTheServersAnswersToThem() throws Exception {
        FaultsOptions o = FaultsOptions.defaults().withClients(10)
                .withTimes(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMillis(200))
                .withFaults(0.05, EnumSet.of(FaultKind.RECEIVER_DIES, FaultKind.HANDLER_THROWS));
        FaultsResult r = new FaultsScenario(o, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)).run();

        assertTrue(r.baseline().completed() > 0 && r.faulted().completed() > 0, r.toText());
        assertEquals(0, r.baseline().errors(), "no faults in phase 1: " + r.toText());
        long dies = r.injected().get(FaultKind.RECEIVER_DIES);
        assertTrue(dies > 0, "5 % of the datagrams killed their receive thread: " + r.toText());
        assertEquals(dies, r.server().receiverRestarts(), "each dead thread replaced");
        assertTrue(r.faulted().retransmissions() > 0, "the lost datagrams were retransmitted: " + r.toText());
        assertEquals(r.injected().get(FaultKind.HANDLER_THROWS), r.server().handlerErrors());
        assertTrue(r.faulted().errors() > 0, "5.00 answers reached the clients: " + r.toText());
        assertEquals(0L, r.injected().get(FaultKind.LAYER_THROWS), "kinds not chosen stay at 0");
        assertEquals(0, r.drain().remaining(), "exchange store empty: " + r.drain());
        assertTrue(r.threadsLeft().isEmpty(), "threads left: " + r.threadsLeft());
    }

    @Test
    void verdictsFailOnSlowdownTimeoutsUnreplacedThreadsUnansweredFaultsStoreAndThreads() {
        StepResult base = step(1000, 0);
        StepResult fine = step(850, 0);
        Map<FaultKind, Long> injected = Map.of(FaultKind.RECEIVER_DIES, 7L, FaultKind.HANDLER_THROWS, 3L,
                FaultKind.LAYER_THROWS, 2L, FaultKind.EXECUTOR_REJECTS, 4L);
        FaultsResult.ServerCounts server = new FaultsResult.ServerCounts(7, 3, 2, 4);
        FaultsResult.Drain drained = new FaultsResult.Drain(3, 0, 20, 5_000);
        FaultsResult ok = FaultsResult.judge("t", 0.01, ALL, base, fine, injected, server, drained, List.of());
        assertTrue(ok.passed(), ok.toText());
        assertTrue(ok.verdicts().get(0).detail().contains("85.0 %"), ok.verdicts().get(0).detail());

        FaultsResult slow = FaultsResult.judge("t", 0.01, ALL, base, step(790, 0), injected, server, drained, List.of());
        assertFalse(slow.verdicts().get(0).passed(), "79 % of the fault-free req/s: " + slow.toText());
        FaultsResult timedOut = FaultsResult.judge("t", 0.01, ALL, base, step(900, 2), injected, server, drained,
                List.of());
        assertFalse(timedOut.verdicts().get(1).passed(), timedOut.toText());
        FaultsResult notReplaced = FaultsResult.judge("t", 0.01, ALL, base, fine, injected,
                new FaultsResult.ServerCounts(6, 3, 2, 4), drained, List.of());
        assertFalse(notReplaced.verdicts().get(2).passed(), "6 restarts for 7 deaths: " + notReplaced.toText());
        FaultsResult unanswered = FaultsResult.judge("t", 0.01, ALL, base, fine, injected,
                new FaultsResult.ServerCounts(7, 3, 1, 4), drained, List.of());
        assertFalse(unanswered.verdicts().get(3).passed(), "1 of 2 layer faults answered: " + unanswered.toText());
        FaultsResult stuck = FaultsResult.judge("t", 0.01, ALL, base, fine, injected, server,
                new FaultsResult.Drain(3, 1, 5_000, 5_000), List.of());
        assertFalse(stuck.verdicts().get(4).passed(), "1 exchange left: " + stuck.toText());
        FaultsResult leak = FaultsResult.judge("t", 0.01, ALL, base, fine, injected, server, drained,
                List.of("stagecoach-udp-receiver-3"));
        assertFalse(leak.verdicts().get(5).passed(), leak.toText());
        assertTrue(leak.toText().contains("stagecoach-udp-receiver-3") && leak.toText().contains("RESULT FAIL"));
        FaultsResult nothing = FaultsResult.judge("t", 0.01, ALL, step(0, 5), fine, injected, server, drained,
                List.of());
        assertFalse(nothing.verdicts().get(0).passed(), "no fault-free answers to compare with");
    }

    @Test
    void badOptionsAreUsageErrors() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--rate", "0"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--rate", "1.5"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--kinds", "BOGUS"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--retransmit", "0"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--clients", "0"}));
        assertEquals(EnumSet.of(FaultKind.RECEIVER_DIES, FaultKind.LAYER_THROWS),
                FaultsOptions.parse(new String[] {"--kinds", "receiver_dies, LAYER_THROWS"}).kinds());
        assertEquals(2, CoapBench.run(new String[] {"scenario", "faults", "--duration", "-1"}));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, ScenarioMain.run(new String[] {"faults", "help"}, "t",
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--drain-limit"), out.toString(StandardCharsets.UTF_8));
    }

    /** {@code completed} answers of 100 µs in a 1-s window, so req/s == completed. */
    private static StepResult step(long completed, long timeouts) {
        Histogram h = new Histogram(1, 20_000_000, 3);
        if (completed > 0) {
            h.recordValueWithCount(100, completed);
        }
        return StepResult.of(10, 1.0, timeouts, 0, h);
    }
}
