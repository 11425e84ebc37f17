package io.stagecoach.core.network.internal.dedup;

/**
 * Number of remembered entries per IPv4 source, as an open-addressing map from the address (an
 * unsigned 32-bit value) to a positive count. A peer whose count drops to zero is
 * removed at once (backward-shift deletion, no tombstones), so peers whose entries all expired
 * cost nothing.
 *
 * <p>Not thread-safe: guarded by the owning {@link DedupSegment}'s lock, which is also the lock
 * of every entry counted here, so count and entries never disagree.
 */
final class PeerCounts {

    private static final int MIN_CAPACITY = 8;

    private long[] peers = new long[MIN_CAPACITY];
    /** 0 marks a free slot; a stored count is always positive. */
    private int[] counts = new int[MIN_CAPACITY];
    private int size;

    /**
     * The segment was chosen by the low bits of {@code DedupSegment.mix(source)}, which are
     * therefore equal for all sources here: hash a scrambled input so the slot bits are
     * independent of them (the hash stays keyed).
     */
    private static int hash(long peer) {
        return DedupSegment.mix(peer * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
    }

    /** The peer's count, 0 if unknown. */
    int get(long peer) {
        int mask = counts.length - 1;
        for (int i = hash(peer) & mask; counts[i] != 0; i = (i + 1) & mask) {
            if (peers[i] == peer) {
                return counts[i];
            }
        }
        return 0;
    }

    /** Adds one to the peer's count, creating it at 1; returns the new count. */
    int increment(long peer) {
        int mask = counts.length - 1;
        int i = hash(peer) & mask;
        for (; counts[i] != 0; i = (i + 1) & mask) {
            if (peers[i] == peer) {
                return ++counts[i];
            }
        }
        peers[i] = peer;
        counts[i] = 1;
        size++;
        if (size * 2 > counts.length) {
            rehash(counts.length * 2);
        }
        return 1;
    }

    /** Subtracts one from the peer's count and forgets the peer when it reaches 0. */
    void decrement(long peer) {
        int mask = counts.length - 1;
        for (int i = hash(peer) & mask; counts[i] != 0; i = (i + 1) & mask) {
            if (peers[i] == peer) {
                if (--counts[i] == 0) {
                    removeAt(i);
                    size--;
                    if (size * 8 < counts.length && counts.length > MIN_CAPACITY) {
                        rehash(counts.length / 2);
                    }
                }
                return;
            }
        }
        throw new IllegalStateException("no count for peer " + Long.toHexString(peer));
    }

    /** Peers with a positive count. */
    int size() {
        return size;
    }

    /** Slots allocated; for tests that check the map shrinks. */
    int capacity() {
        return counts.length;
    }

    private void removeAt(int hole) {
        int mask = counts.length - 1;
        int j = hole;
        while (true) {
            j = (j + 1) & mask;
            if (counts[j] == 0) {
                break;
            }
            int home = hash(peers[j]) & mask;
            // Move j into the hole unless its home lies cyclically in (hole, j].
            boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!stays) {
                peers[hole] = peers[j];
                counts[hole] = counts[j];
                hole = j;
            }
        }
        counts[hole] = 0;
    }

    private void rehash(int capacity) {
        long[] oldPeers = peers;
        int[] oldCounts = counts;
        peers = new long[capacity];
        counts = new int[capacity];
        int mask = capacity - 1;
        for (int k = 0; k < oldCounts.length; k++) {
            if (oldCounts[k] != 0) {
                int i = hash(oldPeers[k]) & mask;
                while (counts[i] != 0) {
                    i = (i + 1) & mask;
                }
                peers[i] = oldPeers[k];
                counts[i] = oldCounts[k];
            }
        }
    }
}
