package io.stagecoach.core.network.dedup;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The caps of a {@link DeduplicationStore}, shared by its segments: a total entry count, reserved
 * by compare-and-set so that concurrent inserts never exceed {@code maxEntries}, and the
 * per-peer limit (checked by the segment that owns the peer).
 */
final class Quota {

    final int maxEntries;
    final int maxPerPeer;
    private final AtomicInteger entries = new AtomicInteger();

    Quota(int maxEntries, int maxPerPeer) {
        this.maxEntries = maxEntries;
        this.maxPerPeer = maxPerPeer;
    }

    /** Reserves room for one entry; {@code false} when the store is full. */
    boolean tryReserve() {
        int n;
        do {
            n = entries.get();
            if (n >= maxEntries) {
                return false;
            }
        } while (!entries.compareAndSet(n, n + 1));
        return true;
    }

    void release() {
        entries.decrementAndGet();
    }

    int entries() {
        return entries.get();
    }
}
