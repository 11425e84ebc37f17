package io.stagecoach.bench.report;

import io.stagecoach.bench.load.StepResult;
import java.util.List;
import java.util.Locale;

/** The human-readable per-step table printed on stdout. */
public final class TextTable {

    private TextTable() {
    }

    public static String render(List<StepResult> steps) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%8s %8s %12s %11s %9s %8s %8s %8s %8s %8s %8s %8s %9s %9s%n",
                "clients", "secs", "req/s", "completed", "timeouts", "retrans", "errors",
                "min", "p50", "p90", "p95", "p99", "p99.9", "max"));
        for (StepResult s : steps) {
            sb.append(String.format(Locale.ROOT, "%8d %8.1f %12.0f %11d %9d %8d %8d %8s %8s %8s %8s %8s %9s %9s%n",
                    s.concurrency(), s.durationS(), s.throughputRps(), s.completed(), s.timeouts(),
                    s.retransmissions(), s.errors(),
                    us(s.minUs()), us(s.percentileUs(50)), us(s.percentileUs(90)), us(s.percentileUs(95)),
                    us(s.percentileUs(99)), us(s.percentileUs(99.9)), us(s.maxUs())));
        }
        sb.append("latencies in µs (round trip from the first transmission, 2.xx answers only; HdrHistogram, "
                + "3 significant digits); retrans = CON retransmissions (--retransmit)\n");
        for (StepResult s : steps) {
            if (s.cpu() != null) {
                double server = s.cpu().serverMicrosPerRequest(s.completed());
                double generator = s.cpu().generatorMicrosPerRequest(s.completed());
                sb.append(String.format(Locale.ROOT, "cpu at %d clients: server %s, generator %s µs per request%n",
                        s.concurrency(), server < 0 ? "-" : String.format(Locale.ROOT, "%.2f", server),
                        generator < 0 ? "-" : String.format(Locale.ROOT, "%.2f", generator)));
            }
        }
        return sb.toString();
    }

    private static String us(long v) {
        return v < 0 ? "-" : Long.toString(v);
    }
}
