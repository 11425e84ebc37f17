package io.stagecoach.elements.tcp;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The event-loop threads of a {@link NettyTcpConnector}: named {@code stagecoach-<role>-N} like
 * every thread of the project, remembered until they have ended so that stop can join them, and
 * Netty's {@code FastThreadLocalThread}s. The last matters for speed: on a plain thread Netty's
 * thread-local caches take a slow path and its object recycler hands every pooled buffer's handle
 * through a multi-producer queue (measured: 14 % of the event loop's time at 90k frames/s).
 */
final class EventLoopThreads extends DefaultThreadFactory {

    private final String prefix;
    private final AtomicInteger next = new AtomicInteger(1);
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    /** @param role e.g. {@code tcp-io} for {@code stagecoach-tcp-io-1} */
    EventLoopThreads(String role) {
        super(NamedThreadFactory.PREFIX + role, true);
        this.prefix = NamedThreadFactory.PREFIX + role + "-";
    }

    @Override
    protected Thread newThread(Runnable r, String ignoredName) {
        threads.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        Thread t = super.newThread(r, prefix + next.getAndIncrement());
        threads.add(t);
        return t;
    }

    /** Waits until every thread made here has ended, at most {@code timeout} in total. */
    void joinAll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        for (Thread t : threads) {
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
    }
}
