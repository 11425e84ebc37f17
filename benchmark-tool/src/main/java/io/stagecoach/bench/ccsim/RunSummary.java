package io.stagecoach.bench.ccsim;

import java.util.Arrays;
import java.util.List;

/**
 * One run object of the report: a {@link Scenario} over all its replications. Percentiles are
 * taken over every client of every replication (N × replications values), as in the paper's
 * Figures 2–4; the histogram is summed over replications (Table 2).
 */
public record RunSummary(Scenario scenario, int replications, Percentiles fct, Percentiles unnecessary,
        long[] histogram, long failedExchanges, double meanSimulatedSeconds) {

    static RunSummary of(Scenario scenario, List<ReplicationResult> results) {
        int n = results.stream().mapToInt(r -> r.fctSeconds().length).sum();
        double[] fct = new double[n];
        double[] unnecessary = new double[n];
        long[] histogram = new long[results.get(0).histogram().length];
        long failed = 0;
        double sim = 0;
        int k = 0;
        for (ReplicationResult r : results) {
            for (int i = 0; i < r.fctSeconds().length; i++, k++) {
                fct[k] = r.fctSeconds()[i];
                unnecessary[k] = r.unnecessary()[i];
            }
            for (int i = 0; i < histogram.length; i++) {
                histogram[i] += r.histogram()[i];
            }
            failed += r.failedExchanges();
            sim += r.simulatedSeconds();
        }
        return new RunSummary(scenario, results.size(), new Percentiles(fct), new Percentiles(unnecessary),
                histogram, failed, sim / results.size());
    }

    /** The histogram without trailing zero columns beyond column 7 (Table 2 shows 0..7). */
    long[] trimmedHistogram() {
        int len = histogram.length;
        while (len > 8 && histogram[len - 1] == 0) {
            len--;
        }
        return Arrays.copyOf(histogram, len);
    }
}
