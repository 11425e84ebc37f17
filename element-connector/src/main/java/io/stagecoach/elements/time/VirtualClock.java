package io.stagecoach.elements.time;

import java.time.Duration;
import java.util.Objects;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} whose time moves only when told: tests and simulations call
 * {@link #advance(Duration)}, which runs every task that falls due in the window on the calling
 * thread, in due-time order (ties in scheduling order), the clock reading the task's due time
 * while it runs. Tasks scheduled by running tasks run in the same call if they fall within the
 * window.
 *
 * <p>Thread-safe: tasks may be scheduled and cancelled from any thread. Tasks run only inside
 * {@link #advance(Duration)} or {@link #runDue()}; calling either from a running task throws
 * {@link IllegalStateException} because time would have to move twice at once. A task that
 * throws is logged and counted ({@link #failedTasks()}); later tasks still run.
 */
public final class VirtualClock implements Scheduler {

    /** A clock at 0 ns with nothing scheduled. */
    public VirtualClock() {
    }

    /** The arbitrary reading at construction: not zero, so code must not rely on it. */
    public static final long START_NANOS = 1_000_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(VirtualClock.class);

    private final Object lock = new Object();
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private long now = START_NANOS;
    private long nextSeq;
    private long failedTasks;
    private Thread runner;

    private final class Task implements Comparable<Task>, Cancellable {
        final Runnable body;
        final long periodNanos;
        long due;
        long seq;
        boolean cancelled;

        Task(Runnable body, long due, long periodNanos) {
            this.body = body;
            this.due = due;
            this.periodNanos = periodNanos;
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(due, o.due);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                if (cancelled) {
                    return false;
                }
                cancelled = true;
                return queue.remove(this);
            }
        }
    }

    @Override
    public long nanoTime() {
        synchronized (lock) {
            return now;
        }
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
        return enqueue(task, delay, 0L);
    }

    @Override
    public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
        long p = period.toNanos();
        if (p <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return enqueue(task, initialDelay, p);
    }

    private Cancellable enqueue(Runnable body, Duration delay, long periodNanos) {
        Objects.requireNonNull(body, "task");
        long d = Math.max(0L, delay.toNanos());
        synchronized (lock) {
            Task t = new Task(body, now + d, periodNanos);
            t.seq = nextSeq++;
            queue.add(t);
            return t;
        }
    }

    /**
     * Moves time forward by {@code duration}, running every task due up to the new time.
     *
     * @throws IllegalArgumentException if the duration is negative
     */
    public void advance(Duration duration) {
        long d = duration.toNanos();
        if (d < 0) {
            throw new IllegalArgumentException("time cannot go back: " + duration);
        }
        long target;
        synchronized (lock) {
            target = now + d;
        }
        runUntil(target);
    }

    /** Runs the tasks due now (including those they schedule with zero delay) without moving time. */
    public void runDue() {
        runUntil(nanoTime());
    }

    private void runUntil(long target) {
        enter();
        try {
            while (true) {
                Task next;
                synchronized (lock) {
                    next = queue.peek();
                    if (next == null || next.due > target) {
                        now = target;
                        return;
                    }
                    queue.poll();
                    now = next.due;
                }
                run(next);
            }
        } finally {
            synchronized (lock) {
                runner = null;
            }
        }
    }

    private void enter() {
        synchronized (lock) {
            if (runner != null) {
                throw new IllegalStateException("advance/runDue called while " + runner.getName()
                        + " is already running tasks");
            }
            runner = Thread.currentThread();
        }
    }

    private void run(Task task) {
        try {
            task.body.run();
        } catch (RuntimeException | Error e) {
            synchronized (lock) {
                failedTasks++;
            }
            LOG.warn("virtual-clock task {} threw", task.body, e);
        }
        if (task.periodNanos > 0) {
            synchronized (lock) {
                if (!task.cancelled) {
                    task.due += task.periodNanos;
                    task.seq = nextSeq++;
                    queue.add(task);
                }
            }
        }
    }

    /** Tasks scheduled and neither run (one-shot) nor cancelled; periodic tasks count once. */
    public int pendingTasks() {
        synchronized (lock) {
            return queue.size();
        }
    }

    /** Task runs that threw since construction. */
    public long failedTasks() {
        synchronized (lock) {
            return failedTasks;
        }
    }
}
