package io.stagecoach.bench.load;

import io.stagecoach.elements.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The time on which a {@link StepRunner} measures and waits out a step's phases (warm-up, the
 * measured window, cool-down). Production runs on {@link #system()}; a test passes a virtual
 * clock that moves once the test has seen the events a window is to contain, so that what a
 * window holds does not depend on how fast a loaded machine runs. The sockets, and the event
 * loops' timeouts and retransmissions, stay in real time either way.
 */
public interface StepClock extends Clock {

    /** Returns once this clock reads {@code deadlineNanos} or later (at once if it already does). */
    void sleepUntil(long deadlineNanos) throws InterruptedException;

    /** {@link System#nanoTime()}, waited on with {@link TimeUnit#sleep}. */
    static StepClock system() {
        return SystemStepClock.INSTANCE;
    }
}
