package io.stagecoach.elements.dtls;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts handshakes in progress, in total and per source (an IPv4 address or an IPv6 /64, any
 * port: {@link SourceBlock}), and refuses a new one beyond either limit. The per-source map holds
 * only sources with a handshake in progress, so it is bounded by the total limit. Lock-free; a
 * slot taken by {@link #tryAcquire} must be given back by exactly one {@link #release}.
 */
final class HandshakeLimiter {

    private final int maxTotal;
    private final int maxPerSource;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<Object, AtomicInteger> perSource = new ConcurrentHashMap<>();

    public HandshakeLimiter(int maxTotal, int maxPerSource) {
        this.maxTotal = maxTotal;
        this.maxPerSource = maxPerSource;
    }

    public boolean tryAcquire(InetAddress source) {
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            return false;
        }
        boolean[] ok = {false};
        perSource.compute(SourceBlock.of(source), (k, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            if (count.get() < maxPerSource) {
                count.incrementAndGet();
                ok[0] = true;
            }
            return count.get() == 0 ? null : count;
        });
        if (!ok[0]) {
            total.decrementAndGet();
        }
        return ok[0];
    }

    public void release(InetAddress source) {
        perSource.computeIfPresent(SourceBlock.of(source), (k, n) -> n.decrementAndGet() <= 0 ? null : n);
        total.decrementAndGet();
    }

    /** Handshakes in progress now. */
    public int inProgress() {
        return total.get();
    }

    /** Handshakes in progress from {@code source}'s block. */
    public int inProgress(InetAddress source) {
        AtomicInteger n = perSource.get(SourceBlock.of(source));
        return n == null ? 0 : n.get();
    }
}
