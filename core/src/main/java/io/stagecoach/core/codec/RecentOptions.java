package io.stagecoach.core.codec;

import io.stagecoach.core.coap.OptionSet;
import java.util.Arrays;

/**
 * Option sets a parser decoded lately, found again by their encoded bytes: requests for the same
 * resource carry the same options every time (a client polling {@code GET /sensors/temp} sends
 * one Uri-Path of the same value), so the parser can give each of them one immutable
 * {@link OptionSet} instead of a new set and a copy of its values per datagram (56 B for one
 * Uri-Path).
 *
 * <p>A direct-mapped table of {@value #SLOTS} slots, indexed by a hash of the option bytes (from
 * the first option header to the end of the last value, RFC 7252 §3.1). A set is kept at its
 * second sighting in a row in its slot, so options that change every time (Observe, Block2, a
 * query with a nonce) cost one hash and one comparison, never a kept entry. Only encodings up to
 * {@value #MAX_BYTES} bytes of at most {@value #MAX_OPTIONS} options are kept, so the table
 * holds at most ~{@value #SLOTS} × 320 B (about 20 KiB) whatever the input, and a hostile sender
 * can only replace entries, never grow the table.
 *
 * <p>Safe to share between threads without locks: each slot holds an immutable {@link Entry}
 * (final fields), so a reader sees a complete entry or an older one, which the byte comparison
 * then accepts or rejects; a lost update costs one more decoding. The {@code int} slots of the
 * last misses are hints only.
 */
final class RecentOptions {

    static final int SLOTS = 64;
    static final int MAX_BYTES = 64;
    static final int MAX_OPTIONS = 8;

    /** The encoded options and the set decoded from them (whose values do not refer to a datagram). */
    private record Entry(byte[] wire, OptionSet options) {
    }

    private final Entry[] entries = new Entry[SLOTS];
    private final int[] lastMiss = new int[SLOTS];

    /** Whether options of {@code length} encoded bytes, {@code count} of them, may be kept at all. */
    static boolean keepable(int length, int count) {
        return length <= MAX_BYTES && count <= MAX_OPTIONS;
    }

    /** A hash of {@code buf[from, to)}, for {@link #find} and {@link #missed}. */
    static int hash(byte[] buf, int from, int to) {
        int h = to - from;
        for (int i = from; i < to; i++) {
            h = 31 * h + buf[i];
        }
        return h ^ h >>> 16;
    }

    /** The kept set whose encoding is {@code buf[from, to)}, or {@code null}. */
    OptionSet find(byte[] buf, int from, int to, int hash) {
        Entry e = entries[hash & (SLOTS - 1)];
        if (e != null && Arrays.equals(e.wire, 0, e.wire.length, buf, from, to)) {
            return e.options;
        }
        return null;
    }

    /**
     * Records a miss of the options hashing to {@code hash}; {@code true} when the same hash
     * missed last in this slot too, i.e. the set is worth {@link #keep keeping}.
     */
    boolean missed(int hash) {
        int slot = hash & (SLOTS - 1);
        if (lastMiss[slot] == hash) {
            return true;
        }
        lastMiss[slot] = hash;
        return false;
    }

    /**
     * Keeps {@code options}, decoded from {@code buf[from, to)}; they must not read their values
     * from {@code buf} (the caller may reuse it).
     */
    void keep(byte[] buf, int from, int to, int hash, OptionSet options) {
        entries[hash & (SLOTS - 1)] = new Entry(Arrays.copyOfRange(buf, from, to), options);
    }
}
