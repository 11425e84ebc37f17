package io.stagecoach.bench.report;

import io.stagecoach.bench.load.StepListener;
import java.io.PrintStream;
import java.util.Locale;

/** Live progress on stderr, one line per second: step, phase, elapsed time, answers/s. */
public final class Progress implements StepListener {

    private final PrintStream out;
    private final int totalSteps;
    private int step;

    public Progress(PrintStream out, int totalSteps) {
        this.out = out;
        this.totalSteps = totalSteps;
    }

    /** Call before each step (1-based). */
    public void beginStep(int step) {
        this.step = step;
    }

    @Override
    public void onProgress(int concurrency, Phase phase, double elapsedS, double phaseS, double rps,
            long timeouts, long errors) {
        out.printf(Locale.ROOT, "[step %d/%d, %d clients] %-7s %5.1f/%.0f s %,10.0f req/s  timeouts %d  errors %d%n",
                step, totalSteps, concurrency, phase.name().toLowerCase(Locale.ROOT), elapsedS, phaseS, rps,
                timeouts, errors);
        out.flush();
    }
}
