package io.stagecoach.core.endpoint;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The protocol stage's threads: a fixed pool fed by a bounded queue, or none at all.
 *
 * <p>With {@code threads == 0} work runs on the submitting thread — the connector's receive thread
 * or the scheduler's thread — which is Welsh's "connect stages by direct call": no hand-off, no
 * queue, and no isolation. With a pool, a full queue refuses work ({@link #tryExecute} returns
 * {@code false}) instead of growing without bound.
 */
final class ProtocolStage {

    private final ThreadPoolExecutor pool;
    private final NamedThreadFactory threads;
    private final Executor external;

    /** Queued datagrams per source while a pool runs the stage; {@code null} otherwise. */
    private final SourceShares shares;

    private ProtocolStage(ThreadPoolExecutor pool, NamedThreadFactory threads, Executor external) {
        this.pool = pool;
        this.threads = threads;
        this.external = external;
        this.shares = pool == null ? null : new SourceShares(pool.getQueue().remainingCapacity() / 2);
    }

    /** A pool of {@code threads} threads and a queue of {@code capacity}; 0 threads = inline. */
    static ProtocolStage pool(int threads, int capacity) {
        if (threads == 0) {
            return new ProtocolStage(null, null, null);
        }
        NamedThreadFactory factory = new NamedThreadFactory("protocol", true);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(capacity), factory, new ThreadPoolExecutor.AbortPolicy());
        return new ProtocolStage(pool, factory, null);
    }

    /** An executor the application owns (and shuts down); this stage never stops it. */
    static ProtocolStage external(Executor executor) {
        return new ProtocolStage(null, null, executor);
    }

    /**
     * Runs {@code task}, a datagram's processing, on the stage for {@code source}: {@code false}
     * when the queue is full or the source's share of it (half) is taken, so that one host
     * flooding the stage leaves room for everyone else's datagrams.
     */
    boolean tryExecute(InetSocketAddress source, Runnable task) {
        if (shares == null) {
            return tryExecute(task);
        }
        int slot = shares.enter(source);
        if (slot < 0) {
            return false;
        }
        if (tryExecute(() -> {
            try {
                task.run();
            } finally {
                shares.leave(slot);
            }
        })) {
            return true;
        }
        shares.leave(slot);
        return false;
    }

    /** Runs {@code task} on the stage; {@code false} when the queue is full. */
    boolean tryExecute(Runnable task) {
        try {
            if (pool != null) {
                pool.execute(task);
            } else if (external != null) {
                external.execute(task);
            } else {
                task.run();
            }
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Whether work runs on the submitting thread (no pool, no external executor). */
    boolean isInline() {
        return pool == null && external == null;
    }

    /** Tasks waiting in the queue. */
    int queueDepth() {
        return pool == null ? 0 : pool.getQueue().size();
    }

    /** Stops the pool (if this stage owns one) and waits for its threads to end. */
    void shutdown(Duration timeout) {
        if (pool == null) {
            return;
        }
        pool.shutdownNow();
        try {
            pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
            threads.joinAll(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
