package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the isolation scenario measured: the light group alone (phase 1), the light and the
 * heavy group side by side (phase 2), and the verdicts derived from them by {@link #judge}.
 *
 * @param target   the server tested, e.g. {@code coap://127.0.0.1:40000 (in-process plugtest)}
 * @param baseline phase 1: light clients on /benchmark alone
 * @param light    phase 2: light clients on /benchmark
 * @param heavy    phase 2: heavy clients on /fibonacci
 */
public record IsolationResult(String target, StepResult baseline, StepResult light, StepResult heavy,
        List<Verdict> verdicts) {

    /** Light p99 in phase 2 may be at most this many times the phase-1 p99. */
    public static final int P99_FACTOR = 5;

    public IsolationResult {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(light, "light");
        Objects.requireNonNull(heavy, "heavy");
        verdicts = List.copyOf(verdicts);
    }

    /** The result with the three isolation verdicts computed from the groups. */
    public static IsolationResult judge(String target, StepResult baseline, StepResult light, StepResult heavy) {
        List<Verdict> v = new ArrayList<>(3);
        v.add(new Verdict("/benchmark timeouts in phase 2 == 0", light.timeouts() == 0,
                light.timeouts() + " timeouts of " + (light.completed() + light.errors() + light.timeouts())
                        + " requests"));
        long p1 = baseline.percentileUs(99);
        long p2 = light.percentileUs(99);
        boolean p99Ok = p1 > 0 && p2 > 0 && p2 <= (long) P99_FACTOR * p1;
        v.add(new Verdict("/benchmark p99 phase 2 <= " + P99_FACTOR + " x p99 phase 1", p99Ok,
                p1 <= 0 || p2 <= 0 ? "no answers to measure (phase 1 " + p1 + " us, phase 2 " + p2 + " us)"
                        : String.format(Locale.ROOT, "%s vs %s, x%.2f", ScenarioReport.ms(p2), ScenarioReport.ms(p1),
                                (double) p2 / p1)));
        long answered = heavy.completed() + heavy.errors();
        long other = heavy.errors() - heavy.unavailable();
        boolean heavyOk = heavy.timeouts() == 0 && answered > 0 && other == 0;
        v.add(new Verdict("/fibonacci answered 2.05 or 5.03, timeouts == 0", heavyOk,
                heavy.completed() + " 2.xx, " + heavy.unavailable() + " 5.03, " + other + " other, "
                        + heavy.timeouts() + " timeouts"));
        return new IsolationResult(target, baseline, light, heavy, v);
    }

    /** True when every verdict passed. */
    public boolean passed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    /** The table of the three groups, then the verdict lines. */
    public String toText() {
        StringBuilder sb = new StringBuilder("isolation scenario against " + target + "\n");
        sb.append(String.format(Locale.ROOT, "%-26s %7s %9s %10s %9s %9s %7s %10s %10s %10s%n", "group", "clients",
                "req/s", "completed", "timeouts", "non-2.xx", "5.03", "p50", "p99", "max"));
        row(sb, "phase 1 /benchmark", baseline);
        row(sb, "phase 2 /benchmark", light);
        row(sb, "phase 2 /fibonacci", heavy);
        ScenarioReport.appendVerdicts(sb, verdicts);
        return sb.toString();
    }

    private static void row(StringBuilder sb, String name, StepResult s) {
        sb.append(String.format(Locale.ROOT, "%-26s %7d %9.1f %10d %9d %9d %7d %10s %10s %10s%n", name,
                s.concurrency(), s.throughputRps(), s.completed(), s.timeouts(), s.errors(), s.unavailable(),
                ScenarioReport.ms(s.percentileUs(50)), ScenarioReport.ms(s.percentileUs(99)), ScenarioReport.ms(s.maxUs())));
    }

    /** The JSON report's content: target, groups (latencies in µs, null when nothing completed), verdicts. */
    public Map<String, Object> toJsonMap(String command, Map<String, Object> machine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        m.put("machine", machine);
        m.put("target", target);
        Map<String, Object> groups = new LinkedHashMap<>();
        groups.put("phase1_benchmark", ScenarioReport.stepJson(baseline));
        groups.put("phase2_benchmark", ScenarioReport.stepJson(light));
        groups.put("phase2_fibonacci", ScenarioReport.stepJson(heavy));
        m.put("groups", groups);
        m.put("verdicts", ScenarioReport.verdictsJson(verdicts));
        m.put("passed", passed());
        return m;
    }
}
