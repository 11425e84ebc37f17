package io.stagecoach.core.network.internal.dedup;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The caps of a {@link DeduplicationStore}, shared by its segments: a total entry count, reserved
 * by compare-and-set so that concurrent inserts never exceed {@code maxEntries}; an estimate of
 * the heap the entries hold, so that large replies or IPv6 peers cannot fill the heap before the
 * count cap is reached; and the per-peer limit (checked by the segment that owns the peer).
 *
 * <p>Bytes are estimates for a 64-bit JVM with compressed references, measured in
 * docs/benchmarks/dedup.md: an IPv4 entry's share of its table (16-byte slots at a load factor
 * near one half), a fallback entry's map node and objects, and each stored reply array. A reply
 * is added when it is stored, after the entry was admitted, so the total may exceed
 * {@code maxBytes} by the replies of the entries in flight.
 */
final class Quota {

    /** Table share of an IPv4 entry: 16-byte slots at a load factor between 0.375 and 0.75. */
    static final int IPV4_ENTRY_BYTES = 33;
    /** HashMap node, key record, entry object of a non-IPv4 entry (128 B measured with a 40-B reply). */
    static final int OTHER_ENTRY_BYTES = 88;

    final int maxEntries;
    final int maxPerPeer;
    private final long maxBytes;
    private final AtomicInteger entries = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();

    Quota(int maxEntries, int maxPerPeer, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxPerPeer = maxPerPeer;
        this.maxBytes = maxBytes;
    }

    /** Heap held by a stored reply array: 16-byte header plus the bytes, aligned to 8. */
    static int replyBytes(byte[] reply) {
        return reply == null || reply.length == 0 ? 0 : (16 + reply.length + 7) & ~7;
    }

    /** Reserves room for one entry of {@code entryBytes}; {@code false} when the store is full. */
    boolean tryReserve(int entryBytes) {
        if (bytes.get() + entryBytes > maxBytes) {
            return false;
        }
        int n;
        do {
            n = entries.get();
            if (n >= maxEntries) {
                return false;
            }
        } while (!entries.compareAndSet(n, n + 1));
        bytes.addAndGet(entryBytes);
        return true;
    }

    /** A stored reply grew or shrank the entry by {@code delta} bytes. */
    void adjust(long delta) {
        if (delta != 0) {
            bytes.addAndGet(delta);
        }
    }

    /** Gives back one entry that held {@code entryBytes} in all (its reply included). */
    void release(long entryBytes) {
        entries.decrementAndGet();
        bytes.addAndGet(-entryBytes);
    }

    int entries() {
        return entries.get();
    }

    long bytes() {
        return bytes.get();
    }
}
