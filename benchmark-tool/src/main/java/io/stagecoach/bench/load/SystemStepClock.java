package io.stagecoach.bench.load;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The real-time {@link StepClock}. */
enum SystemStepClock implements StepClock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void sleepUntil(long deadlineNanos, StepListener.Phase phase, Supplier<StepProgress> progress)
            throws InterruptedException {
        long rest = deadlineNanos - System.nanoTime();
        if (rest > 0) {
            TimeUnit.NANOSECONDS.sleep(rest);
        }
    }
}
