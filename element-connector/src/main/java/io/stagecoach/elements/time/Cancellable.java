package io.stagecoach.elements.time;

/** Handle of a scheduled task. */
@FunctionalInterface
public interface Cancellable {

    /**
     * Prevents the task from running if it has not started yet; idempotent.
     *
     * @return {@code true} if this call cancelled a pending run
     */
    boolean cancel();
}
