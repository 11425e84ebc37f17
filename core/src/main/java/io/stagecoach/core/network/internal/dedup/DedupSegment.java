package io.stagecoach.core.network.internal.dedup;

import io.stagecoach.core.network.internal.PeerHashing;
import io.stagecoach.core.network.internal.Source;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * One lock stripe of a {@link DeduplicationStore}: all entries of the sources (IPv4 address, IPv6
 * /64: {@link Source}) that hash to it.
 *
 * <p>IPv4 entries live in an open-addressing table of three parallel arrays — a packed key
 * ({@code address << 32 | port << 16 | mid}), an int of metadata (expiry second, and a flag for
 * entries released on completion) and a reference to the reply — 16 bytes per slot, no object
 * per entry. Other peers (IPv6, unresolved) fall back to a {@link HashMap} of small objects whose
 * keys are ordered, so a crowded bin stays a tree. Slots come from a keyed hash
 * ({@link PeerHashing}): a remote party cannot aim its keys at one probe run.
 *
 * <p>Because a source's entries all live in one segment, its count is kept under the same lock as
 * the entries: counting, capping and dropping a source whose count reaches zero are race-free
 * without atomics. The segment also remembers its heaviest source (approximately: the one whose
 * count last passed the previous maximum), which {@link #evictOldestOfHeaviest} thins out when
 * the store is full. Every method is {@code synchronized}.
 */
final class DedupSegment {

    /** Reply slot value of an entry whose processing has not completed. */
    static final byte[] IN_FLIGHT = new byte[0];
    /** Reply slot value of an entry completed with an empty ACK. */
    static final byte[] EMPTY_ACK = new byte[0];
    /** Metadata flag: remove the entry when it completes (relaxed idempotent requests). */
    static final int RELEASE_ON_COMPLETE = 0x80000000;
    private static final int EXPIRY_MASK = 0x7FFFFFFF;
    private static final int MIN_CAPACITY = 16;

    private final Quota quota;
    private long[] keys = new long[MIN_CAPACITY];
    private int[] meta = new int[MIN_CAPACITY];
    /** {@code null} marks a free slot. */
    private byte[][] replies = new byte[MIN_CAPACITY][];
    private int size;
    private final PeerCounts ipv4Sources = new PeerCounts();

    private final Map<OtherKey, OtherEntry> others = new HashMap<>();
    private final Map<Source, Integer> otherSources = new HashMap<>();

    /** The heaviest source seen here: an IPv4 address, or an other source; -1 / null for none. */
    private long heavyIpv4 = -1;
    private Source heavyOther;
    private int heavyCount;

    /** Key of a non-IPv4 entry; hashed with a key and ordered, so colliding peers stay cheap. */
    record OtherKey(InetSocketAddress peer, int mid) implements Comparable<OtherKey> {
        @Override
        public int hashCode() {
            return PeerHashing.hash(peer) * 31 + mid;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof OtherKey k && k.mid == mid && k.peer.equals(peer);
        }

        @Override
        public int compareTo(OtherKey o) {
            int c = PeerHashing.compare(peer, o.peer);
            return c != 0 ? c : Integer.compare(mid, o.mid);
        }
    }

    /** Value of a non-IPv4 entry; mutable, guarded by the segment lock. */
    private static final class OtherEntry {
        int meta;
        byte[] reply = IN_FLIGHT;

        OtherEntry(int meta) {
            this.meta = meta;
        }
    }

    DedupSegment(Quota quota) {
        this.quota = quota;
    }

    /** The keyed slot hash of a packed key (see {@link PeerHashing#hash(long)}). */
    static int mix(long x) {
        return PeerHashing.hash(x);
    }

    static boolean expired(int meta, int nowSec) {
        return nowSec >= (meta & EXPIRY_MASK);
    }

    // ---- IPv4 -------------------------------------------------------------------------------

    synchronized DedupResult lookupOrInsert(long key, int nowSec, int newMeta) {
        int i = find(key);
        if (i >= 0) {
            if (!expired(meta[i], nowSec)) {
                return existing(replies[i]);
            }
            // Expired but not yet swept: the slot becomes the new message's entry, counts unchanged.
            meta[i] = newMeta;
            quota.adjust(-Quota.replyBytes(replies[i]));
            replies[i] = IN_FLIGHT;
            return DedupResult.NEW;
        }
        long source = key >>> 32;
        if (ipv4Sources.get(source) >= quota.maxPerPeer) {
            return DedupResult.OVERLOADED;
        }
        if (!quota.tryReserve(Quota.IPV4_ENTRY_BYTES)) {
            return DedupResult.FULL;
        }
        i = -i - 1;
        keys[i] = key;
        meta[i] = newMeta;
        replies[i] = IN_FLIGHT;
        int count = ipv4Sources.increment(source);
        if (count > heavyCount || (heavyOther == null && source == heavyIpv4)) {
            heavyIpv4 = source;
            heavyOther = null;
            heavyCount = count;
        }
        if (++size * 4 > replies.length * 3) {
            rehash(replies.length * 2);
        }
        return DedupResult.NEW;
    }

    /** Stores {@code reply} (or {@link #EMPTY_ACK}); see {@link DeduplicationStore#complete}. */
    synchronized boolean complete(long key, byte[] reply, int length) {
        int i = find(key);
        if (i < 0) {
            return false;
        }
        if ((meta[i] & RELEASE_ON_COMPLETE) != 0 && reply != EMPTY_ACK) {
            removeAt(i);
        } else {
            byte[] kept = kept(reply, length);
            quota.adjust(Quota.replyBytes(kept) - Quota.replyBytes(replies[i]));
            replies[i] = kept;
        }
        return true;
    }

    /**
     * What an entry keeps of a reply: the array itself ({@code length < 0}), or a copy of its first
     * {@code length} bytes, made only here, when the entry is kept, so that a reply written into a
     * reused buffer costs an array only when it is remembered.
     */
    private static byte[] kept(byte[] reply, int length) {
        return length < 0 ? reply : Arrays.copyOf(reply, length);
    }

    /** See {@link DeduplicationStore#release}: drops a released entry whose answer is the empty ACK. */
    synchronized boolean release(long key) {
        int i = find(key);
        if (i < 0 || (meta[i] & RELEASE_ON_COMPLETE) == 0 || replies[i] != EMPTY_ACK) {
            return false;
        }
        removeAt(i);
        return true;
    }

    synchronized boolean remove(long key) {
        int i = find(key);
        if (i < 0) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /** Slot of {@code key}, or {@code -(free slot) - 1}. */
    private int find(long key) {
        int mask = replies.length - 1;
        int i = mix(key) & mask;
        while (replies[i] != null) {
            if (keys[i] == key) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -i - 1;
    }

    /** Removes slot {@code hole}, shifting back later entries of its probe run (no tombstones). */
    private void removeAt(int hole) {
        long source = keys[hole] >>> 32;
        ipv4Sources.decrement(source);
        if (heavyOther == null && source == heavyIpv4 && --heavyCount == 0) {
            heavyIpv4 = -1;
        }
        quota.release(Quota.IPV4_ENTRY_BYTES + Quota.replyBytes(replies[hole]));
        size--;
        int mask = replies.length - 1;
        int j = hole;
        while (true) {
            j = (j + 1) & mask;
            if (replies[j] == null) {
                break;
            }
            int home = mix(keys[j]) & mask;
            boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!stays) {
                keys[hole] = keys[j];
                meta[hole] = meta[j];
                replies[hole] = replies[j];
                hole = j;
            }
        }
        replies[hole] = null;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        int[] oldMeta = meta;
        byte[][] oldReplies = replies;
        keys = new long[capacity];
        meta = new int[capacity];
        replies = new byte[capacity][];
        int mask = capacity - 1;
        for (int k = 0; k < oldReplies.length; k++) {
            if (oldReplies[k] != null) {
                int i = mix(oldKeys[k]) & mask;
                while (replies[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[k];
                meta[i] = oldMeta[k];
                replies[i] = oldReplies[k];
            }
        }
    }

    // ---- other peers ------------------------------------------------------------------------

    synchronized DedupResult lookupOrInsert(OtherKey key, int nowSec, int newMeta) {
        OtherEntry entry = others.get(key);
        if (entry != null) {
            if (!expired(entry.meta, nowSec)) {
                return existing(entry.reply);
            }
            entry.meta = newMeta;
            quota.adjust(-Quota.replyBytes(entry.reply));
            entry.reply = IN_FLIGHT;
            return DedupResult.NEW;
        }
        Source source = Source.of(key.peer());
        int count = otherSources.getOrDefault(source, 0);
        if (count >= quota.maxPerPeer) {
            return DedupResult.OVERLOADED;
        }
        if (!quota.tryReserve(Quota.OTHER_ENTRY_BYTES)) {
            return DedupResult.FULL;
        }
        others.put(key, new OtherEntry(newMeta));
        otherSources.put(source, count + 1);
        if (count + 1 > heavyCount || source.equals(heavyOther)) {
            heavyOther = source;
            heavyIpv4 = -1;
            heavyCount = count + 1;
        }
        return DedupResult.NEW;
    }

    synchronized boolean complete(OtherKey key, byte[] reply, int length) {
        OtherEntry entry = others.get(key);
        if (entry == null) {
            return false;
        }
        if ((entry.meta & RELEASE_ON_COMPLETE) != 0 && reply != EMPTY_ACK) {
            others.remove(key);
            releaseOther(key.peer(), entry);
        } else {
            byte[] kept = kept(reply, length);
            quota.adjust(Quota.replyBytes(kept) - Quota.replyBytes(entry.reply));
            entry.reply = kept;
        }
        return true;
    }

    synchronized boolean release(OtherKey key) {
        OtherEntry entry = others.get(key);
        if (entry == null || (entry.meta & RELEASE_ON_COMPLETE) == 0 || entry.reply != EMPTY_ACK) {
            return false;
        }
        others.remove(key);
        releaseOther(key.peer(), entry);
        return true;
    }

    synchronized boolean remove(OtherKey key) {
        OtherEntry entry = others.remove(key);
        if (entry == null) {
            return false;
        }
        releaseOther(key.peer(), entry);
        return true;
    }

    private void releaseOther(InetSocketAddress peer, OtherEntry entry) {
        Source source = Source.of(peer);
        // computeIfPresent drops the mapping when the function returns null: no zero counts kept.
        otherSources.computeIfPresent(source, (p, c) -> c == 1 ? null : c - 1);
        if (source.equals(heavyOther) && --heavyCount == 0) {
            heavyOther = null;
        }
        quota.release(Quota.OTHER_ENTRY_BYTES + Quota.replyBytes(entry.reply));
    }

    // ---- eviction ---------------------------------------------------------------------------

    /** Entries of this segment's heaviest source (approximate, see the class comment); 0 for none. */
    synchronized int heaviestCount() {
        return heavyCount;
    }

    /**
     * Removes the oldest eighth (at least one) of the entries of this segment's heaviest source,
     * oldest expiry first, in one pass over its entries: the store calls this when it is full, so
     * that a flooding source pays instead of everyone.
     *
     * @return the number of entries removed
     */
    synchronized int evictOldestOfHeaviest() {
        if (heavyCount == 0) {
            return 0;
        }
        if (heavyOther != null) {
            Source source = heavyOther;
            List<Map.Entry<OtherKey, OtherEntry>> mine = new ArrayList<>();
            for (Map.Entry<OtherKey, OtherEntry> e : others.entrySet()) {
                if (Source.of(e.getKey().peer()).equals(source)) {
                    mine.add(e);
                }
            }
            mine.sort(Comparator.comparingInt(e -> e.getValue().meta & EXPIRY_MASK));
            int n = Math.max(1, mine.size() / 8);
            for (int k = 0; k < n && k < mine.size(); k++) {
                OtherKey key = mine.get(k).getKey();
                OtherEntry entry = others.remove(key);
                releaseOther(key.peer(), entry);
            }
            return Math.min(n, mine.size());
        }
        long source = heavyIpv4;
        int total = ipv4Sources.get(source);
        long[] found = new long[total];
        int m = 0;
        for (int i = 0; i < replies.length && m < total; i++) {
            if (replies[i] != null && keys[i] >>> 32 == source) {
                // expiry in the high half, so sorting orders by age; the key's low 32 bits follow
                found[m++] = (long) (meta[i] & EXPIRY_MASK) << 32 | (keys[i] & 0xFFFF_FFFFL);
            }
        }
        Arrays.sort(found, 0, m);
        int n = Math.max(1, m / 8);
        int removed = 0;
        for (int k = 0; k < n && k < m; k++) {
            int i = find(source << 32 | (found[k] & 0xFFFF_FFFFL));
            if (i >= 0) {
                removeAt(i);
                removed++;
            }
        }
        return removed;
    }

    // ---- both -------------------------------------------------------------------------------

    private static DedupResult existing(byte[] reply) {
        if (reply == IN_FLIGHT) {
            return DedupResult.IN_FLIGHT;
        }
        return reply == EMPTY_ACK ? DedupResult.DONE_EMPTY_ACK : DedupResult.done(reply);
    }

    /** Removes every entry expired at {@code nowSec}; returns how many. */
    synchronized int sweep(int nowSec) {
        int removed = 0;
        int i = 0;
        while (i < replies.length) {
            if (replies[i] != null && expired(meta[i], nowSec)) {
                // removeAt may shift a later entry into slot i: look at slot i again.
                removeAt(i);
                removed++;
            } else {
                i++;
            }
        }
        if (size * 8 < replies.length && replies.length > MIN_CAPACITY) {
            int capacity = MIN_CAPACITY;
            while (size * 2 > capacity) {
                capacity *= 2;
            }
            rehash(capacity);
        }
        for (Iterator<Map.Entry<OtherKey, OtherEntry>> it = others.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<OtherKey, OtherEntry> e = it.next();
            if (expired(e.getValue().meta, nowSec)) {
                it.remove();
                releaseOther(e.getKey().peer(), e.getValue());
                removed++;
            }
        }
        return removed;
    }

    synchronized int size() {
        return size + others.size();
    }

    /** Sources with at least one entry; for tests that check sources do not leak. */
    synchronized int sources() {
        return ipv4Sources.size() + otherSources.size();
    }

    /** Slots of the IPv4 table; for tests that check the table shrinks. */
    synchronized int capacity() {
        return replies.length;
    }
}
