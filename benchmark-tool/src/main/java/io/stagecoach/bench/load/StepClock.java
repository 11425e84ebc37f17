package io.stagecoach.bench.load;

import io.stagecoach.elements.time.Clock;
import java.util.function.Supplier;

/**
 * The time on which a {@link StepRunner} measures and waits out a step's phases (warm-up, the
 * measured window, cool-down). Production runs on {@link #system()}; a test passes a virtual
 * clock that moves once the events a window is to contain have happened, so that what a window
 * holds does not depend on how fast a loaded machine runs. The sockets, and the event loops'
 * timeouts and retransmissions, stay in real time either way.
 */
public interface StepClock extends Clock {

    /**
     * Returns once this clock reads {@code deadlineNanos} or later (at once if it already does).
     *
     * @param phase    the phase being waited out; in {@link StepListener.Phase#COOLDOWN} the
     *                 clients have stopped
     * @param progress the step's totals, read live: a clock that moves on events may wait for
     *                 them; the system clock ignores them
     */
    void sleepUntil(long deadlineNanos, StepListener.Phase phase, Supplier<StepProgress> progress)
            throws InterruptedException;

    /** {@link System#nanoTime()}, waited on with {@link java.util.concurrent.TimeUnit#sleep}. */
    static StepClock system() {
        return SystemStepClock.INSTANCE;
    }
}
