package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The parts every scenario's text and JSON report share: one step, the verdicts, a latency. */
final class ScenarioReport {

    private ScenarioReport() {
    }

    /** {@code 1.234 ms}, or {@code -} when nothing completed. */
    static String ms(long micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
    }

    /** One verdict line each, then {@code RESULT PASS} or {@code RESULT FAIL}. */
    static void appendVerdicts(StringBuilder sb, List<Verdict> verdicts) {
        for (Verdict v : verdicts) {
            sb.append(v).append('\n');
        }
        sb.append(verdicts.stream().allMatch(Verdict::passed) ? "RESULT PASS\n" : "RESULT FAIL\n");
    }

    /** {@code [{"name", "passed", "detail"}, ...]}. */
    static List<Object> verdictsJson(List<Verdict> verdicts) {
        List<Object> vs = new ArrayList<>();
        for (Verdict v : verdicts) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", v.name());
            e.put("passed", v.passed());
            e.put("detail", v.detail());
            vs.add(e);
        }
        return vs;
    }

    /** One step's counts and latencies (µs; {@code null} when nothing completed). */
    static Map<String, Object> stepJson(StepResult s) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("clients", s.concurrency());
        g.put("duration_s", s.durationS());
        g.put("throughput_rps", s.throughputRps());
        g.put("completed", s.completed());
        g.put("timeouts", s.timeouts());
        g.put("retransmissions", s.retransmissions());
        g.put("non_2xx", s.errors());
        g.put("service_unavailable_503", s.unavailable());
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", s.completed() == 0 ? null : s.percentileUs(50));
        lat.put("p99", s.completed() == 0 ? null : s.percentileUs(99));
        lat.put("max", s.completed() == 0 ? null : s.maxUs());
        g.put("latency_us", lat);
        return g;
    }
}
