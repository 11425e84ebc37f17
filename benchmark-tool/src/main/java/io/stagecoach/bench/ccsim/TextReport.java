package io.stagecoach.bench.ccsim;

import java.util.List;
import java.util.Locale;

/** The plain-text summary printed to stdout: Table 1 and Table 2 style rows. */
final class TextReport {

    private TextReport() {
    }

    static String render(List<RunSummary> runs) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-11s %-10s %5s %8s %3s | %8s %8s %8s %8s %8s %8s %8s | %6s %6s %6s %7s | %s%n",
                "cc", "workload", "N", "buffer", "rep", "min", "p10", "p25", "median", "p75", "p90", "max",
                "u.p25", "u.med", "u.p75", "u.mean", "retransmissions histogram 0,1,2,.. (failed)"));
        for (RunSummary r : runs) {
            Scenario s = r.scenario();
            Percentiles f = r.fct();
            Percentiles u = r.unnecessary();
            StringBuilder h = new StringBuilder();
            for (long v : r.trimmedHistogram()) {
                h.append(h.length() == 0 ? "" : " ").append(v);
            }
            sb.append(String.format(Locale.ROOT,
                    "%-11s %-10s %5d %8d %3d | %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f | %6.1f %6.1f %6.1f %7.2f | %s (%d)%n",
                    s.strategy().cliName(), s.workload().cliName(), s.clients(), s.bufferBytes(), r.replications(),
                    f.min(), f.at(10), f.at(25), f.at(50), f.at(75), f.at(90), f.max(),
                    u.at(25), u.at(50), u.at(75), u.mean(), h, r.failedExchanges()));
        }
        return sb.toString();
    }
}
