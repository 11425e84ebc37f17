package io.stagecoach.elements.concurrent;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates every thread Stagecoach starts. Names are {@code stagecoach-<role>-<n>}, so a test
 * can find leaked threads by the {@code stagecoach-} prefix alone.
 *
 * <p>The factory remembers the threads it created until they have ended, so that the owner
 * can {@linkplain #joinAll(Duration) join} them on shutdown: an executor's
 * {@code awaitTermination} returns before its worker threads have actually died.
 */
public final class NamedThreadFactory implements ThreadFactory {

    /** Prefix of every thread name the project creates. */
    public static final String PREFIX = "stagecoach-";

    private final String prefix;
    private final boolean daemon;
    private final AtomicInteger next = new AtomicInteger(1);
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    /**
     * @param role the middle part of the name, e.g. {@code "timer"} gives {@code stagecoach-timer-1};
     *             a role already starting with {@code stagecoach-} is used as is
     */
    public NamedThreadFactory(String role, boolean daemon) {
        Objects.requireNonNull(role, "role");
        this.prefix = (role.startsWith(PREFIX) ? role : PREFIX + role) + "-";
        this.daemon = daemon;
    }

    @Override
    public Thread newThread(Runnable task) {
        // A thread is forgotten only once it is dead: removing it when its task returned left a
        // window in which joinAll() skipped a thread that was still alive.
        threads.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        Thread thread = new Thread(task, prefix + next.getAndIncrement());
        thread.setDaemon(daemon);
        threads.add(thread);
        return thread;
    }

    /** Threads created by this factory that have not finished yet (started or not). */
    public Set<Thread> liveThreads() {
        threads.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        return Set.copyOf(threads);
    }

    /**
     * Waits until every thread this factory created has ended, at most {@code timeout} in total.
     *
     * @return {@code true} if all have ended
     */
    public boolean joinAll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        for (Thread t : liveThreads()) {
            if (t == Thread.currentThread()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            while (t.isAlive() && left > 0) {
                try {
                    t.join(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                left = deadline - System.nanoTime();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return liveThreads().stream().allMatch(t -> t == Thread.currentThread() || !t.isAlive());
    }
}
