package io.stagecoach.bench.load;

import java.util.List;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * What one step measured. {@code completed} is the number of 2.xx answers in the measured
 * window and always equals {@code latencyUs.getTotalCount()}: both come from the same
 * histogram. The histogram is the exact merge of every virtual client's round-trip times
 * (µs, 3 significant digits); percentiles are read from it, never averaged.
 *
 * @param concurrency   virtual clients in this step
 * @param durationS     measured window in seconds
 * @param timeouts      requests that got no answer within the timeout in the window
 * @param errors        non-2.xx responses and RSTs in the window
 * @param throughputRps completed / durationS (summed over slaves when merged)
 * @param latencyUs     round-trip times of the completed requests; treat as read-only
 * @param unavailable   of the {@code errors}, the 5.03 Service Unavailable answers (RFC 7252
 *                      §5.9.3.4); not carried by the distributed control protocol (0 there)
 * @param retransmissions CON requests sent again with the same MID and token in the window
 *                      ({@link LoadSpec#retransmit()}, RFC 7252 §4.2); 0 when off
 * @param cpu           CPU time of server and generator in the window, when measured (the C
 *                      generator measures it), else {@code null}
 */
public record StepResult(int concurrency, double durationS, long completed, long timeouts, long errors,
        double throughputRps, Histogram latencyUs, long unavailable, long retransmissions, CpuTime cpu) {

    /**
     * CPU seconds (user + system, all threads) used in the measured window.
     *
     * @param serverSeconds    of the server process; negative when it was not watched
     * @param generatorSeconds of the load generator
     */
    public record CpuTime(double serverSeconds, double generatorSeconds) {

        /** Server CPU µs per completed request, or -1 when not measured or nothing completed. */
        public double serverMicrosPerRequest(long completed) {
            return serverSeconds < 0 || completed == 0 ? -1 : serverSeconds * 1e6 / completed;
        }

        /** Generator CPU µs per completed request, or -1 when nothing completed. */
        public double generatorMicrosPerRequest(long completed) {
            return generatorSeconds < 0 || completed == 0 ? -1 : generatorSeconds * 1e6 / completed;
        }
    }

    public StepResult {
        Objects.requireNonNull(latencyUs, "latencyUs");
        if (completed != latencyUs.getTotalCount()) {
            throw new IllegalArgumentException("completed " + completed + " != histogram count "
                    + latencyUs.getTotalCount());
        }
        if (unavailable < 0 || unavailable > errors) {
            throw new IllegalArgumentException("5.03 count " + unavailable + " must be 0.." + errors + " (the errors)");
        }
        if (retransmissions < 0) {
            throw new IllegalArgumentException("retransmissions must not be negative: " + retransmissions);
        }
    }

    /** A result without CPU times. */
    public StepResult(int concurrency, double durationS, long completed, long timeouts, long errors,
            double throughputRps, Histogram latencyUs, long unavailable, long retransmissions) {
        this(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs, unavailable,
                retransmissions, null);
    }

    /** A result without retransmissions. */
    public StepResult(int concurrency, double durationS, long completed, long timeouts, long errors,
            double throughputRps, Histogram latencyUs, long unavailable) {
        this(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs, unavailable, 0);
    }

    /** A result without a separate 5.03 count. */
    public StepResult(int concurrency, double durationS, long completed, long timeouts, long errors,
            double throughputRps, Histogram latencyUs) {
        this(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs, 0);
    }

    /** This result with {@code unavailable} of its errors counted as 5.03. */
    public StepResult withUnavailable(long unavailable) {
        return new StepResult(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs,
                unavailable, retransmissions, cpu);
    }

    /** This result with {@code retransmissions} CON retransmissions counted. */
    public StepResult withRetransmissions(long retransmissions) {
        return new StepResult(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs,
                unavailable, retransmissions, cpu);
    }

    /** This result with the CPU times of its window. */
    public StepResult withCpu(CpuTime cpu) {
        return new StepResult(concurrency, durationS, completed, timeouts, errors, throughputRps, latencyUs,
                unavailable, retransmissions, cpu);
    }

    /** A result whose counts come from {@code latencyUs}; throughput = completed / duration. */
    public static StepResult of(int concurrency, double durationS, long timeouts, long errors, Histogram latencyUs) {
        long completed = latencyUs.getTotalCount();
        double rps = durationS > 0 ? completed / durationS : 0;
        return new StepResult(concurrency, durationS, completed, timeouts, errors, rps, latencyUs);
    }

    /**
     * Merges the results of slaves that ran the same step side by side: counts and concurrency
     * add up, histograms are added bucket by bucket, throughput is the sum of the slaves'
     * throughputs, duration the longest measured window.
     */
    public static StepResult merge(List<StepResult> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge");
        }
        Histogram merged = new Histogram(1, highest(parts), 3);
        int concurrency = 0;
        long timeouts = 0;
        long errors = 0;
        long unavailable = 0;
        long retransmissions = 0;
        double rps = 0;
        double duration = 0;
        for (StepResult p : parts) {
            merged.add(p.latencyUs());
            concurrency += p.concurrency();
            timeouts += p.timeouts();
            errors += p.errors();
            unavailable += p.unavailable();
            retransmissions += p.retransmissions();
            rps += p.throughputRps();
            duration = Math.max(duration, p.durationS());
        }
        return new StepResult(concurrency, duration, merged.getTotalCount(), timeouts, errors, rps, merged,
                unavailable, retransmissions);
    }

    private static long highest(List<StepResult> parts) {
        long h = 2;
        for (StepResult p : parts) {
            h = Math.max(h, p.latencyUs().getHighestTrackableValue());
        }
        return h;
    }

    /** Latency at {@code percentile} (0..100) in µs, or -1 when nothing completed. */
    public long percentileUs(double percentile) {
        return completed == 0 ? -1 : latencyUs.getValueAtPercentile(percentile);
    }

    public long minUs() {
        return completed == 0 ? -1 : latencyUs.getMinValue();
    }

    public long maxUs() {
        return completed == 0 ? -1 : latencyUs.getMaxValue();
    }
}
