package io.stagecoach.examples.faults;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Rejects a task at the {@link FaultKind#EXECUTOR_REJECTS} rate, as a full bounded pool would. */
final class FaultyExecutor implements Executor {
    private final FaultInjector faults;
    private final Executor delegate;

    FaultyExecutor(FaultInjector faults, Executor delegate) {
        this.faults = faults;
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void execute(Runnable task) {
        if (faults.inject(FaultKind.EXECUTOR_REJECTS)) {
            throw new RejectedExecutionException("injected " + FaultKind.EXECUTOR_REJECTS);
        }
        delegate.execute(task);
    }
}
