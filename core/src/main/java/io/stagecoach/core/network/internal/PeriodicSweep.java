package io.stagecoach.core.network.internal;

import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Runs a bulk-expiry sweep at a fixed rate on a {@link Scheduler}, passing the scheduler's clock
 * reading. One task per store instead of one timer per entry (Lanter 2013, §5.4: per-message
 * timers were Californium's bottleneck). Start at most once at a time; stop is idempotent.
 */
public final class PeriodicSweep {

    private final String name;
    private final LongConsumer sweep;
    private final AtomicReference<Cancellable> task = new AtomicReference<>();

    /**
     * @param name  names the sweep in exception messages
     * @param sweep called with the current {@link Scheduler#nanoTime()}
     */
    public PeriodicSweep(String name, LongConsumer sweep) {
        this.name = Objects.requireNonNull(name, "name");
        this.sweep = Objects.requireNonNull(sweep, "sweep");
    }

    /**
     * Sweeps every {@code period}, the first time one period from now.
     *
     * @throws IllegalStateException    if already started
     * @throws IllegalArgumentException if the period is not positive
     */
    public void start(Scheduler scheduler, Duration period) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(name + " period must be positive: " + period);
        }
        Cancellable placeholder = () -> false;
        if (!task.compareAndSet(null, placeholder)) {
            throw new IllegalStateException(name + " already started");
        }
        Cancellable scheduled;
        try {
            scheduled = scheduler.scheduleAtFixedRate(() -> sweep.accept(scheduler.nanoTime()), period, period);
        } catch (RuntimeException e) {
            task.compareAndSet(placeholder, null);
            throw e;
        }
        if (!task.compareAndSet(placeholder, scheduled)) {
            scheduled.cancel(); // stop() ran in between
        }
    }

    /** Cancels the periodic sweep if running. */
    public void stop() {
        Cancellable current = task.getAndSet(null);
        if (current != null) {
            current.cancel();
        }
    }
}
