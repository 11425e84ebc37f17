package io.stagecoach.bench.ccsim;

import java.util.Arrays;

/** Order statistics of a sample, by linear interpolation between closest ranks (R type 7). */
final class Percentiles {

    private final double[] sorted;

    Percentiles(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        sorted = values.clone();
        Arrays.sort(sorted);
    }

    /** @param p in [0, 100] */
    double at(double p) {
        double rank = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (rank - lo) * (sorted[hi] - sorted[lo]);
    }

    double min() {
        return sorted[0];
    }

    double max() {
        return sorted[sorted.length - 1];
    }

    double mean() {
        double sum = 0;
        for (double v : sorted) {
            sum += v;
        }
        return sum / sorted.length;
    }

    int count() {
        return sorted.length;
    }
}
