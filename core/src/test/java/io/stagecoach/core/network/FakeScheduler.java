package io.stagecoach.core.network;

import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * Test-only virtual-time {@link Scheduler}: time moves only in {@link #advance}, which runs due
 * tasks in due-time order on the calling thread. No threads. (Stands in until the shared
 * {@code VirtualClock} is available.)
 */
public final class FakeScheduler implements Scheduler {

    private final PriorityQueue<Task> queue =
            new PriorityQueue<>((a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;

    /** Starts at {@code startNanos}; a non-zero start catches code that assumes time begins at 0. */
    public FakeScheduler(long startNanos) {
        this.now = startNanos;
    }

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, Duration delay) {
        return add(task, delay.toNanos(), 0);
    }

    @Override
    public synchronized Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
        return add(task, initialDelay.toNanos(), period.toNanos());
    }

    /** Pending (not cancelled) tasks. */
    public synchronized int pending() {
        return (int) queue.stream().filter(t -> !t.cancelled).count();
    }

    /** Moves time forward by {@code d}, running every task that falls due on the way. */
    public void advance(Duration d) {
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due > target) {
                    now = target;
                    return;
                }
                queue.poll();
                now = next.due;
                if (next.cancelled) {
                    continue;
                }
                if (next.period > 0) {
                    next.due += next.period;
                    queue.add(next);
                }
            }
            next.runnable.run();
        }
    }

    private Cancellable add(Runnable runnable, long delay, long period) {
        Task t = new Task(runnable, now + Math.max(0, delay), period, seq++);
        queue.add(t);
        return () -> {
            synchronized (FakeScheduler.this) {
                boolean was = !t.cancelled;
                t.cancelled = true;
                return was;
            }
        };
    }

    private static final class Task {
        final Runnable runnable;
        long due;
        final long period;
        final long seq;
        boolean cancelled;

        Task(Runnable runnable, long due, long period, long seq) {
            this.runnable = runnable;
            this.due = due;
            this.period = period;
            this.seq = seq;
        }
    }
}
