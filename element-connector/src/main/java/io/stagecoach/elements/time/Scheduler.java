package io.stagecoach.elements.time;

import java.time.Duration;

/**
 * Runs tasks later, on the time of its own {@link Clock}.
 *
 * <p>Production code uses a real-time scheduler backed by a small thread pool; tests and the
 * congestion-control simulation use a virtual clock whose tasks run, in due-time order, only
 * when the test advances it. Code that schedules must therefore never assume which thread runs
 * the task, nor that the task runs before the scheduling call returns.
 *
 * <p>Lanter (thesis §5.4) measured a scheduled task per message as the bottleneck of an earlier
 * Californium: schedule per exchange only where the protocol needs a timer (retransmission),
 * and use one periodic sweep for bulk expiry.
 */
public interface Scheduler extends Clock {

    /**
     * Runs {@code task} once, {@code delay} after now.
     *
     * @return a handle whose {@link Cancellable#cancel()} prevents the run if it has not started
     */
    Cancellable schedule(Runnable task, Duration delay);

    /**
     * Runs {@code task} every {@code period}, the first time {@code initialDelay} after now, until
     * cancelled. A run that throws does not stop later runs; the failure is logged.
     */
    Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period);
}
