package io.stagecoach.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.cli.CoapBench;
import io.stagecoach.bench.load.EventPacedClock;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenario end to end against the in-process plugtest server, its phases on an
 * {@link EventPacedClock} (each wait ends once the waiting runner's clients got 100 answers; the
 * light and the heavy runner of phase 2 each have their own virtual time), and its verdict rules.
 */
@Timeout(60)
class IsolationScenarioTest {

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void smallRunAgainstInProcessPlugtestKeepsLightClientsAnswered(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("isolation.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"isolation", "--clients-light", "10", "--clients-heavy", "10", "--n", "20",
            "--warmup", "0.3", "--duration", "1", "--cooldown", "0", "--timeout", "5", "--json", json.toString()};

        int code = ScenarioMain.run(args, "test", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), EventPacedClock.onAnswers(100));

        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("phase 1 /benchmark") && text.contains("phase 2 /benchmark")
                && text.contains("phase 2 /fibonacci"), "table:\n" + text);
        assertEquals(3, text.lines().filter(l -> l.startsWith("PASS  ") || l.startsWith("FAIL  ")).count(),
                "three verdict lines in:\n" + text);
        assertTrue(text.contains("/benchmark timeouts in phase 2 == 0"), text);
        assertTrue(text.contains("PASS  /benchmark timeouts in phase 2 == 0"),
                "10 light clients next to 10 fib(20) clients must see no timeout:\n" + text);
        assertTrue(text.contains("PASS  /fibonacci answered 2.05 or 5.03"), "heavy clients:\n" + text);
        // The p99 ratio depends on the machine's load; the exit code must follow the verdicts.
        assertEquals(text.contains("RESULT PASS") ? 0 : 1, code, text);
        String j = Files.readString(json);
        assertTrue(j.contains("\"phase2_fibonacci\"") && j.contains("\"service_unavailable_503\"")
                && j.contains("\"verdicts\""), j);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("isolation: phase 2"), "progress on stderr");
    }

    @Test
    void scenarioResultSeparatesTheGroups() throws Exception {
        IsolationOptions o = IsolationOptions.defaults()
                .withTimes(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ZERO)
                .withClients(10, 10, 20);
        IsolationResult r = new IsolationScenario(o, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), EventPacedClock.onAnswers(100)).run();

        assertEquals(10, r.baseline().concurrency());
        assertEquals(10, r.light().concurrency());
        assertEquals(10, r.heavy().concurrency());
        assertTrue(r.baseline().completed() > 0, "phase 1 /benchmark answers: " + r.baseline().completed());
        assertTrue(r.light().completed() > 0, "phase 2 /benchmark answers: " + r.light().completed());
        assertEquals(0, r.baseline().timeouts(), "phase 1 timeouts");
        assertEquals(0, r.light().timeouts(), "phase 2 /benchmark timeouts");
        assertEquals(0, r.light().errors(), "/benchmark answers 2.05 only");
        assertTrue(r.heavy().completed() + r.heavy().errors() > 0, "fib(20) answers (2.05 or 5.03)");
        assertEquals(r.heavy().errors(), r.heavy().unavailable(), "the only error code of /fibonacci is 5.03");
        assertEquals(3, r.verdicts().size());
    }

    @Test
    void verdictsFailOnTimeoutsSlowLightClientsAndOtherHeavyCodes() {
        StepResult base = step(10, 0, 0, 0, 100, 200);
        StepResult fine = step(10, 0, 0, 0, 300, 900);
        StepResult heavy503 = step(10, 0, 50, 50, 5_000, 6_000);
        IsolationResult ok = IsolationResult.judge("t", base, fine, heavy503);
        assertTrue(ok.passed(), ok.toText());

        IsolationResult timedOut = IsolationResult.judge("t", base, step(10, 3, 0, 0, 100, 200), heavy503);
        assertFalse(timedOut.verdicts().get(0).passed(), timedOut.toText());

        // p99 200 µs alone, 2 ms with the heavy load: 10x > 5x.
        IsolationResult slow = IsolationResult.judge("t", base, step(10, 0, 0, 0, 1_900, 2_000), heavy503);
        assertFalse(slow.verdicts().get(1).passed(), slow.toText());
        assertTrue(slow.verdicts().get(1).detail().contains("x10"), slow.verdicts().get(1).detail());

        IsolationResult silentHeavy = IsolationResult.judge("t", base, fine, step(10, 7, 0, 0, 0, 0));
        assertFalse(silentHeavy.verdicts().get(2).passed(), "heavy timeouts: " + silentHeavy.toText());
        IsolationResult wrongCode = IsolationResult.judge("t", base, fine, step(10, 0, 5, 2, 100, 200));
        assertFalse(wrongCode.verdicts().get(2).passed(), "3 non-5.03 errors: " + wrongCode.toText());
        assertFalse(wrongCode.passed());

        IsolationResult nothing = IsolationResult.judge("t", step(10, 5, 0, 0, 0, 0), fine, heavy503);
        assertFalse(nothing.verdicts().get(1).passed(), "no baseline answers: " + nothing.toText());
    }

    @Test
    void badOptionsAreUsageErrors() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> IsolationOptions.parse(new String[] {"--n", "46"}));
        assertThrows(IllegalArgumentException.class,
                () -> IsolationOptions.parse(new String[] {"--clients-light", "0"}));
        assertThrows(IllegalArgumentException.class, () -> IsolationOptions.parse(new String[] {"--bogus"}));
        assertEquals(2, CoapBench.run(new String[] {"scenario", "isolation", "--duration", "-1"}));
        assertEquals(2, CoapBench.run(new String[] {"scenario", "nonesuch"}));
    }

    /** {@code completed} answers between {@code lowUs} and {@code highUs}, evenly spread. */
    private static StepResult step(int clients, long timeouts, long errors, long unavailable, long lowUs, long highUs) {
        Histogram h = new Histogram(1, 20_000_000, 3);
        for (long v = lowUs; v > 0 && v <= highUs; v += Math.max(1, (highUs - lowUs) / 99)) {
            h.recordValue(v);
        }
        return StepResult.of(clients, 1.0, timeouts, errors, h).withUnavailable(unavailable);
    }

    @Test
    void unavailableCannotExceedErrors() {
        StepResult r = step(1, 0, 2, 0, 10, 20);
        assertThrows(IllegalArgumentException.class, () -> r.withUnavailable(3));
        assertEquals(List.of(2L, 2L), List.of(r.errors(), r.withUnavailable(2).unavailable()));
    }
}
