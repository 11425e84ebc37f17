package io.stagecoach.core.endpoint;

import io.stagecoach.core.network.internal.PeerHashing;
import io.stagecoach.core.network.internal.Source;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * How many queued datagrams each source (IPv4 address, IPv6 /64: {@link Source}) holds in the
 * protocol stage's queue, capped at a share, so that one host flooding the stage cannot fill the
 * queue that everyone else's requests wait in (their answer would be 5.03).
 *
 * <p>Counted in a fixed array of buckets by the source's keyed hash, not in a map: no allocation
 * per datagram, bounded memory whatever the number of sources. Two sources in one bucket share
 * its cap; with the per-process key ({@link PeerHashing}) an attacker cannot choose to collide
 * with a given victim.
 */
final class SourceShares {

    private static final int BUCKETS = 4096;

    private final AtomicIntegerArray queued = new AtomicIntegerArray(BUCKETS);
    private final int share;

    /** @param share datagrams one source may have waiting; at least 1 */
    SourceShares(int share) {
        this.share = Math.max(1, share);
    }

    /** Counts a datagram of {@code peer}'s source in: its bucket, or -1 if the source's share is taken. */
    int enter(InetSocketAddress peer) {
        int bucket = bucket(peer);
        if (queued.incrementAndGet(bucket) > share) {
            queued.decrementAndGet(bucket);
            return -1;
        }
        return bucket;
    }

    /** Counts the datagram of {@link #enter}'s {@code bucket} out. */
    void leave(int bucket) {
        queued.decrementAndGet(bucket);
    }

    /** The bucket of {@code peer}'s source (its keyed hash). */
    static int bucket(InetSocketAddress peer) {
        long ipv4 = Source.ipv4(peer.getAddress());
        int hash = ipv4 >= 0 ? PeerHashing.hash(ipv4) : Source.of(peer).hashCode();
        return hash & (BUCKETS - 1);
    }
}
