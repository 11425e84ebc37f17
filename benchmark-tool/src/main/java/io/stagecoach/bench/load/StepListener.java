package io.stagecoach.bench.load;

import org.HdrHistogram.Histogram;

/** Callbacks of a running step, on the controller thread; every method has a no-op default. */
public interface StepListener {

    StepListener NONE = new StepListener() { };

    /** Phases of a step in order. */
    enum Phase { WARMUP, MEASURE, COOLDOWN }

    /** About once a second: the phase, seconds into it, its length and the answers/s since the last call. */
    default void onProgress(int concurrency, Phase phase, double elapsedS, double phaseS, double rps,
            long timeouts, long errors) {
    }

    /** One measured interval's latencies (µs); timestamps are epoch milliseconds. */
    default void onInterval(int concurrency, long startEpochMs, long endEpochMs, Histogram interval) {
    }
}
