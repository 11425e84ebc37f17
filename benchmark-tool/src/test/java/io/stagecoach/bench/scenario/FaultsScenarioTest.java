package io.stagecoach.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.cli.CoapBench;
import io.stagecoach.bench.load.EventPacedClock;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.faults.FaultKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenario end to end against the in-process plugtest server, its phases on an
 * {@link EventPacedClock} (each warm-up and measured wait ends once the clients got a number of
 * answers, so every phase has traffic, and faults to count, however loaded the machine), and
 * its verdict rules.
 */
@Timeout(60)
class FaultsScenarioTest {

    private static final Set<FaultKind> ALL = EnumSet.allOf(FaultKind.class);

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void smallRunWithFrequentFaultsKeepsServingDrainsAndLeavesNoThread(@TempDir Path dir) throws Exception {
        // 5 % of every kind on 10 clients, 2 rounds of 1-s phases: dozens of each fault are injected.
        Path json = dir.resolve("faults.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"faults", "--rate", "0.05", "--clients", "10", "--warmup", "0.3", "--duration", "1",
            "--cooldown", "0.2", "--timeout", "3", "--retransmit", "20", "--rounds", "2", "--json", json.toString()};

        int code = ScenarioMain.run(args, "test", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), EventPacedClock.onAnswers(200));

        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(6, text.lines().filter(l -> l.startsWith("PASS  ") || l.startsWith("FAIL  ")).count(),
                "six verdict lines in:\n" + text);
        // Machine-independent verdicts: they count, they do not time.
        for (String v : List.of("every dead receive thread replaced", "every injected handler/layer fault answered",
                "exchange store drains to 0", "no stagecoach- thread after destroy()", "faulty-phase timeouts == 0")) {
            assertTrue(text.contains("PASS  " + v), v + ":\n" + text);
        }
        // Warm-up, then round 1 clean before faulty, round 2 faulty before clean.
        List<String> phases = text.lines().filter(l -> l.startsWith("warm-up") || l.startsWith("round "))
                .map(l -> l.substring(0, 18).trim()).toList();
        assertEquals(List.of("warm-up (unjudged)", "round 1 clean", "round 1 faulty", "round 2 faulty",
                "round 2 clean"), phases, text);
        assertTrue(text.contains("median req/s: clean "), text);
        // The throughput ratio depends on the machine's load; the exit code must follow the verdicts.
        assertEquals(text.contains("RESULT PASS") ? 0 : 1, code, text);
        String j = Files.readString(json);
        assertTrue(j.contains("\"receiver_restarts\"") && j.contains("\"open_after_wait\": 0")
                && j.contains("\"RECEIVER_DIES\"") && j.contains("\"retransmissions\"")
                && j.contains("\"median_throughput_rps\"") && j.contains("\"warmup\""), j);
        assertEquals(2, j.split("\"round\": ").length - 1, "each round listed: " + j);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("faults: round 2/2 faulty"), "progress on stderr");
    }

    @Test
    void runReportsInjectedFaultsAndTheServersAnswersToThem() throws Exception {
        FaultsOptions o = FaultsOptions.defaults().withClients(10).withRounds(1)
                .withTimes(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMillis(200))
                .withFaults(0.05, EnumSet.of(FaultKind.RECEIVER_DIES, FaultKind.HANDLER_THROWS));
        // 500 answers per phase: at 5 % per datagram, faults of both kinds come in the faulty one.
        FaultsResult r = new FaultsScenario(o, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), EventPacedClock.onAnswers(500)).run();

        assertEquals(1, r.rounds().size(), r.toText());
        FaultsRound round = r.rounds().get(0);
        assertFalse(round.faultyFirst(), "round 1 runs clean first");
        assertTrue(r.warmup().completed() > 0 && round.clean().completed() > 0 && round.faulty().completed() > 0,
                r.toText());
        assertEquals(0, r.warmup().errors(), "no faults in the warm-up: " + r.toText());
        assertEquals(0, round.clean().errors(), "no faults in the clean phase: " + r.toText());
        assertEquals(round.clean().throughputRps(), r.cleanMedianRps(), "median of one round is that round");
        long dies = r.injected().get(FaultKind.RECEIVER_DIES);
        assertTrue(dies > 0, "5 % of the datagrams killed their receive thread: " + r.toText());
        assertEquals(dies, r.server().receiverRestarts(), "each dead thread replaced");
        assertTrue(round.faulty().retransmissions() > 0, "the lost datagrams were retransmitted: " + r.toText());
        assertEquals(r.injected().get(FaultKind.HANDLER_THROWS), r.server().handlerErrors());
        assertTrue(round.faulty().errors() > 0, "5.00 answers reached the clients: " + r.toText());
        assertEquals(0L, r.injected().get(FaultKind.LAYER_THROWS), "kinds not chosen stay at 0");
        assertEquals(0, r.drain().remaining(), "exchange store empty: " + r.drain());
        assertTrue(r.threadsLeft().isEmpty(), "threads left: " + r.threadsLeft());
    }

    @Test
    void verdictsFailOnSlowdownTimeoutsUnreplacedThreadsUnansweredFaultsStoreAndThreads() {
        List<FaultsRound> fine = rounds(new long[] {1000, 1000, 1000}, new long[] {850, 850, 850});
        Map<FaultKind, Long> injected = Map.of(FaultKind.RECEIVER_DIES, 7L, FaultKind.HANDLER_THROWS, 3L,
                FaultKind.LAYER_THROWS, 2L, FaultKind.EXECUTOR_REJECTS, 4L);
        FaultsResult.ServerCounts server = new FaultsResult.ServerCounts(7, 3, 2, 4);
        FaultsResult.Drain drained = new FaultsResult.Drain(3, 0, 20, 5_000);
        FaultsResult ok = judge(fine, injected, server, drained, List.of());
        assertTrue(ok.passed(), ok.toText());
        assertTrue(ok.verdicts().get(0).detail().contains("85.0 %"), ok.verdicts().get(0).detail());

        FaultsResult slow = judge(rounds(new long[] {1000, 1000, 1000}, new long[] {790, 790, 790}), injected,
                server, drained, List.of());
        assertFalse(slow.verdicts().get(0).passed(), "79 % of the fault-free req/s: " + slow.toText());
        List<FaultsRound> oneTimeout = List.of(new FaultsRound(1, false, step(1000, 0), step(900, 0)),
                new FaultsRound(2, true, step(1000, 0), step(900, 2)));
        FaultsResult timedOut = judge(oneTimeout, injected, server, drained, List.of());
        assertFalse(timedOut.verdicts().get(1).passed(), "2 timeouts in round 2's faulty phase: " + timedOut.toText());
        assertTrue(timedOut.verdicts().get(1).detail().startsWith("2 timeouts"), timedOut.verdicts().get(1).detail());
        List<FaultsRound> cleanTimeout = List.of(new FaultsRound(1, false, step(1000, 3), step(900, 0)));
        assertTrue(judge(cleanTimeout, injected, server, drained, List.of()).verdicts().get(1).passed(),
                "timeouts of a fault-free phase are not the faults' verdict");
        FaultsResult notReplaced = judge(fine, injected, new FaultsResult.ServerCounts(6, 3, 2, 4), drained,
                List.of());
        assertFalse(notReplaced.verdicts().get(2).passed(), "6 restarts for 7 deaths: " + notReplaced.toText());
        FaultsResult unanswered = judge(fine, injected, new FaultsResult.ServerCounts(7, 3, 1, 4), drained,
                List.of());
        assertFalse(unanswered.verdicts().get(3).passed(), "1 of 2 layer faults answered: " + unanswered.toText());
        FaultsResult stuck = judge(fine, injected, server, new FaultsResult.Drain(3, 1, 5_000, 5_000), List.of());
        assertFalse(stuck.verdicts().get(4).passed(), "1 exchange left: " + stuck.toText());
        FaultsResult leak = judge(fine, injected, server, drained, List.of("stagecoach-udp-receiver-3"));
        assertFalse(leak.verdicts().get(5).passed(), leak.toText());
        assertTrue(leak.toText().contains("stagecoach-udp-receiver-3") && leak.toText().contains("RESULT FAIL"));
        FaultsResult nothing = judge(rounds(new long[] {0}, new long[] {850}), injected, server, drained, List.of());
        assertFalse(nothing.verdicts().get(0).passed(), "no fault-free answers to compare with");
        FaultsResult silent = judge(List.of(new FaultsRound(1, false, step(1000, 0), step(900, 0)),
                new FaultsRound(2, true, step(1000, 0), step(0, 0))), injected, server, drained, List.of());
        assertFalse(silent.verdicts().get(1).passed(), "a faulty phase that completed nothing: " + silent.toText());
    }

    @Test
    void throughputIsJudgedOnTheMediansSoOneDisturbedPhaseDoesNotDecide() {
        Map<FaultKind, Long> none = Map.of();
        FaultsResult.ServerCounts server = new FaultsResult.ServerCounts(0, 0, 0, 0);
        FaultsResult.Drain drained = new FaultsResult.Drain(0, 0, 0, 5_000);
        // One fault-free phase slowed by a neighbour's build (400): the means (790 / 800) would pass at 99 %;
        // the medians 1000 and 790 give 79 %: fail.
        FaultsResult dipped = judge(rounds(new long[] {1000, 400, 1000}, new long[] {790, 790, 790}), none, server,
                drained, List.of());
        assertEquals(1000, dipped.cleanMedianRps(), 1e-9);
        assertEquals(790, dipped.faultyMedianRps(), 1e-9);
        assertFalse(dipped.verdicts().get(0).passed(), dipped.toText());
        // One faulty phase that happened to run alone on the machine (3000) does not rescue two at 70 %.
        FaultsResult lucky = judge(rounds(new long[] {1000, 1000, 1000}, new long[] {700, 3000, 700}), none, server,
                drained, List.of());
        assertEquals(700, lucky.faultyMedianRps(), 1e-9);
        assertFalse(lucky.verdicts().get(0).passed(), "median 70 %: " + lucky.toText());
        // And one slow faulty phase does not fail two that kept up.
        FaultsResult spike = judge(rounds(new long[] {1000, 900, 1100}, new long[] {950, 300, 900}), none, server,
                drained, List.of());
        assertTrue(spike.verdicts().get(0).passed(), spike.toText());
        assertTrue(spike.verdicts().get(0).detail().contains("900.0 vs 1000.0 req/s over 3 round(s), 90.0 %"),
                spike.verdicts().get(0).detail());
        // An even number of rounds: the mean of the middle two, (800 + 1000) / 2 and (700 + 800) / 2.
        FaultsResult two = judge(rounds(new long[] {1000, 800}, new long[] {700, 800}), none, server, drained,
                List.of());
        assertEquals(900, two.cleanMedianRps(), 1e-9);
        assertEquals(750, two.faultyMedianRps(), 1e-9);
        assertTrue(two.verdicts().get(0).detail().contains("83.3 %"), two.verdicts().get(0).detail());
        // Exactly 80 % passes.
        assertTrue(judge(rounds(new long[] {1000}, new long[] {800}), none, server, drained, List.of())
                .verdicts().get(0).passed());
    }

    @Test
    void textListsEveryPhaseInTheOrderItRan() {
        FaultsResult r = judge(rounds(new long[] {1000, 1001, 1002}, new long[] {900, 901, 902}), Map.of(),
                new FaultsResult.ServerCounts(0, 0, 0, 0), new FaultsResult.Drain(0, 0, 0, 5_000), List.of());
        List<String> rows = r.toText().lines().filter(l -> l.startsWith("warm-up") || l.startsWith("round "))
                .map(l -> l.replaceAll("\\s+", " ")).toList();
        assertEquals(7, rows.size(), r.toText());
        assertTrue(rows.get(0).startsWith("warm-up (unjudged) 10 500.0"), rows.get(0));
        assertTrue(rows.get(1).startsWith("round 1 clean 10 1000.0"), rows.get(1));
        assertTrue(rows.get(2).startsWith("round 1 faulty 10 900.0"), rows.get(2));
        assertTrue(rows.get(3).startsWith("round 2 faulty 10 901.0"), rows.get(3));
        assertTrue(rows.get(4).startsWith("round 2 clean 10 1001.0"), rows.get(4));
        assertTrue(rows.get(5).startsWith("round 3 clean 10 1002.0"), rows.get(5));
        assertTrue(rows.get(6).startsWith("round 3 faulty 10 902.0"), rows.get(6));
        assertTrue(r.toText().contains("median req/s: clean 1001.0, faulty 901.0, ratio 90.0 %"), r.toText());
    }

    @Test
    void badOptionsAreUsageErrors() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--rate", "0"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--rate", "1.5"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--kinds", "BOGUS"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--retransmit", "0"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--clients", "0"}));
        assertThrows(IllegalArgumentException.class, () -> FaultsOptions.parse(new String[] {"--rounds", "0"}));
        assertEquals(3, FaultsOptions.defaults().rounds());
        assertEquals(5, FaultsOptions.parse(new String[] {"--rounds", "5"}).rounds());
        assertEquals(EnumSet.of(FaultKind.RECEIVER_DIES, FaultKind.LAYER_THROWS),
                FaultsOptions.parse(new String[] {"--kinds", "receiver_dies, LAYER_THROWS"}).kinds());
        assertEquals(2, CoapBench.run(new String[] {"scenario", "faults", "--duration", "-1"}));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, ScenarioMain.run(new String[] {"faults", "help"}, "t",
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--drain-limit")
                && out.toString(StandardCharsets.UTF_8).contains("--rounds"), out.toString(StandardCharsets.UTF_8));
    }

    /** Round n (1-based) with clean[n-1] and faulty[n-1] req/s, alternating order as the scenario runs them. */
    private static List<FaultsRound> rounds(long[] clean, long[] faulty) {
        List<FaultsRound> out = new ArrayList<>();
        for (int i = 0; i < clean.length; i++) {
            out.add(new FaultsRound(i + 1, FaultsRound.faultyFirst(i + 1), step(clean[i], 0), step(faulty[i], 0)));
        }
        return out;
    }

    private static FaultsResult judge(List<FaultsRound> rounds, Map<FaultKind, Long> injected,
            FaultsResult.ServerCounts server, FaultsResult.Drain drain, List<String> threadsLeft) {
        return FaultsResult.judge("t", 0.01, ALL, step(500, 0), rounds, injected, server, drain, threadsLeft);
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
