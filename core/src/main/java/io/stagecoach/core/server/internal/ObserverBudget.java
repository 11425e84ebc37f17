package io.stagecoach.core.server.internal;

import io.stagecoach.core.network.internal.Source;

import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The observe relations a whole server accepts, shared by its endpoints: at most OBSERVE_MAX_OBSERVERS
 * in all and OBSERVE_MAX_OBSERVERS_PER_SOURCE per peer, so that one hostile peer cannot take the
 * server's whole budget. A peer's entry exists only while it holds a relation.
 */
public final class ObserverBudget {

    private final int max;
    private final int maxPerPeer;
    private final AtomicInteger used = new AtomicInteger();
    private final ConcurrentHashMap<Source, Integer> perSource = new ConcurrentHashMap<>();

    public ObserverBudget(int max, int maxPerPeer) {
        if (max < 1 || maxPerPeer < 1) {
            throw new IllegalArgumentException("observer limits must be at least 1, got " + max + " in all and "
                    + maxPerPeer + " per peer");
        }
        this.max = max;
        this.maxPerPeer = maxPerPeer;
    }

    /** Takes one relation for {@code peer}; {@code false} when the server or the peer's source is at its limit. */
    public boolean tryAcquire(InetSocketAddress peer) {
        boolean[] granted = new boolean[1];
        perSource.compute(Source.of(peer), (k, n) -> {
            int held = n == null ? 0 : n;
            if (held >= maxPerPeer || !tryAcquireTotal()) {
                return n;
            }
            granted[0] = true;
            return held + 1;
        });
        return granted[0];
    }

    public void release(InetSocketAddress peer) {
        perSource.computeIfPresent(Source.of(peer), (k, n) -> n <= 1 ? null : n - 1);
        used.decrementAndGet();
    }

    public int used() {
        return used.get();
    }

    /** Sources holding at least one relation. */
    public int sources() {
        return perSource.size();
    }

    private boolean tryAcquireTotal() {
        int u = used.get();
        while (u < max) {
            if (used.compareAndSet(u, u + 1)) {
                return true;
            }
            u = used.get();
        }
        return false;
    }
}
