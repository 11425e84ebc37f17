package io.stagecoach.core.server;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Executors for resources whose handlers block or take long. They are bounded on purpose: an
 * unbounded queue would hide overload until memory runs out, while a full bounded one throws
 * {@link java.util.concurrent.RejectedExecutionException}, which the deliverer answers 5.03 Service
 * Unavailable with Max-Age (RFC 7252 §5.9.3.4), telling clients when to retry.
 *
 * <p>Threads are daemons named {@code stagecoach-resource-<name>-<n>}. The caller owns the
 * executor and shuts it down with the server.
 */
public final class BoundedExecutors {

    public static final String THREAD_PREFIX = "stagecoach-resource-";

    private BoundedExecutors() {
    }

    /**
     * One thread and a queue of {@code capacity} waiting tasks (0: a task is accepted only while
     * the thread is idle); further tasks are rejected ({@link ThreadPoolExecutor.AbortPolicy}).
     */
    public static ThreadPoolExecutor singleThread(String name, int capacity) {
        return fixed(name, 1, capacity);
    }

    /** As {@link #singleThread(String, int)} with {@code threads} threads. */
    public static ThreadPoolExecutor fixed(String name, int threads, int capacity) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (capacity < 0) {
            throw new IllegalArgumentException("queue capacity must be >= 0, got " + capacity);
        }
        BlockingQueue<Runnable> queue = capacity == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(capacity);
        return new ThreadPoolExecutor(threads, threads, 0L, TimeUnit.MILLISECONDS, queue,
                new NamedThreadFactory(THREAD_PREFIX + name, true), new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Waits until every thread of an executor made here has ended (after its shutdown), at most
     * {@code timeout}; {@code true} when none is left or the executor is not one of these.
     */
    public static boolean joinThreads(Executor executor, Duration timeout) {
        if (executor instanceof ThreadPoolExecutor pool && pool.getThreadFactory() instanceof NamedThreadFactory f) {
            return f.joinAll(timeout);
        }
        return true;
    }
}
