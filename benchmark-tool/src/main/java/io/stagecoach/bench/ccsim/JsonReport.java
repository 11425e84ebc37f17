package io.stagecoach.bench.ccsim;

import java.util.List;
import java.util.Locale;

/** The {@code --json} output: one run object per grid cell. */
final class JsonReport {

    private JsonReport() {
    }

    static String render(List<RunSummary> runs) {
        StringBuilder sb = new StringBuilder("{\"runs\": [");
        for (int i = 0; i < runs.size(); i++) {
            RunSummary r = runs.get(i);
            Scenario s = r.scenario();
            Percentiles f = r.fct();
            Percentiles u = r.unnecessary();
            sb.append(i == 0 ? "\n  " : ",\n  ");
            sb.append("{\"cc\": \"").append(s.strategy().cliName()).append('"')
                    .append(", \"workload\": \"").append(s.workload().cliName()).append('"')
                    .append(", \"clients\": ").append(s.clients())
                    .append(", \"buffer\": ").append(s.bufferBytes())
                    .append(", \"replications\": ").append(r.replications())
                    .append(", \"fct_s\": {\"min\": ").append(num(f.min()))
                    .append(", \"p10\": ").append(num(f.at(10)))
                    .append(", \"p25\": ").append(num(f.at(25)))
                    .append(", \"median\": ").append(num(f.at(50)))
                    .append(", \"p75\": ").append(num(f.at(75)))
                    .append(", \"p90\": ").append(num(f.at(90)))
                    .append(", \"max\": ").append(num(f.max())).append('}')
                    .append(", \"unnecessary_retransmissions_per_client\": {\"median\": ").append(num(u.at(50)))
                    .append(", \"p25\": ").append(num(u.at(25)))
                    .append(", \"p75\": ").append(num(u.at(75)))
                    .append(", \"mean\": ").append(num(u.mean())).append('}')
                    .append(", \"transmissions_histogram\": [");
            long[] h = r.trimmedHistogram();
            for (int k = 0; k < h.length; k++) {
                sb.append(k == 0 ? "" : ", ").append(h[k]);
            }
            sb.append("]}");
        }
        return sb.append("\n]}\n").toString();
    }

    static String num(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
