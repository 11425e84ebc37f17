package io.stagecoach.elements.time;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Scheduler}: one {@link ScheduledThreadPoolExecutor} with daemon threads
 * named {@code stagecoach-timer-N} on {@link System#nanoTime()}.
 *
 * <p>Cancelled tasks are removed from the queue at once (no garbage build-up with one
 * retransmission timer per exchange). A task that throws is logged; a periodic task keeps its
 * schedule. {@link #close()} drops pending tasks, waits for running ones and joins the threads.
 */
public final class RealTimeScheduler implements Scheduler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RealTimeScheduler.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final NamedThreadFactory threads = new NamedThreadFactory("timer", true);
    private final ScheduledThreadPoolExecutor executor;

    /** One timer thread: timer tasks must be short, so one is enough for a CoAP endpoint. */
    public RealTimeScheduler() {
        this(1);
    }

    public RealTimeScheduler(int threadCount) {
        if (threadCount < 1) {
            throw new IllegalArgumentException("threadCount must be >= 1: " + threadCount);
        }
        executor = new ScheduledThreadPoolExecutor(threadCount, threads);
        executor.setRemoveOnCancelPolicy(true);
        // close() must not wait for timers that are days away
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
        ScheduledFuture<?> f = executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
        ScheduledFuture<?> f = executor.scheduleAtFixedRate(guarded(task), initialDelay.toNanos(),
                period.toNanos(), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    // An exception escaping a periodic task would silently cancel it (ScheduledExecutorService contract).
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("scheduled task {} threw", task, e);
            }
        };
    }

    /** Drops pending tasks, waits up to 5 s for running ones, then joins the timer threads. */
    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
                executor.awaitTermination(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (!threads.joinAll(CLOSE_TIMEOUT)) {
            LOG.warn("timer threads still alive after close: {}", threads.liveThreads());
        }
    }
}
