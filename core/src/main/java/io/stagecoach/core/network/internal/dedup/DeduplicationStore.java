package io.stagecoach.core.network.internal.dedup;

import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.PeriodicSweep;
import io.stagecoach.elements.time.Clock;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.core.network.internal.Source;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Duplicate detection for received messages (RFC 7252 §4.5): remembers each (peer, MID) with the
 * reply sent for it, so that a duplicate gets the same bytes again and the handler runs at most
 * once.
 *
 * <p><b>Protocol.</b> For every received CON or NON request the endpoint calls
 * {@link #lookupOrInsert}. The check and the insert are one atomic step, so of two copies of a
 * message arriving at once exactly one is {@link DedupResult.Status#NEW NEW}. The endpoint
 * processes a NEW message and then calls {@link #complete} with the encoded reply (piggybacked
 * response, or the response to a NON), {@link #completeEmptyAck} when it sent an empty ACK ahead
 * of a separate response (then {@link #release} when that exchange ends), or {@link #forget} when
 * it dropped the message without answering.
 *
 * <p><b>Lifetime.</b> An entry lives EXCHANGE_LIFETIME (CON) or NON_LIFETIME (NON) measured
 * from <em>receipt</em>, not completion (RFC 7252 §4.8.2; the difference is the processing time,
 * at most seconds against 145/247 s), rounded up to the next whole second. In
 * {@link DeduplicationMode#IDEMPOTENT_RELAXED} entries of idempotent requests are removed by
 * {@link #complete} instead (or at the end of that lifetime if never completed). Expired entries are removed by {@link #sweep}, which
 * {@link #start} runs periodically: no timer per message (Lanter 2013, §5.4). An expired entry
 * that has not been swept yet never counts as a duplicate.
 *
 * <p><b>Bounds.</b> At most {@code maxEntriesPerSource} entries per <em>source</em> (IPv4 address,
 * IPv6 /64: {@link Source}; one host cannot multiply its share by rotating ports), beyond which
 * its messages are answered {@link DedupResult.Status#OVERLOADED OVERLOADED}; at most
 * {@code maxEntries} in total and about {@code maxBytes} of heap (entries and stored replies,
 * estimated as in {@link Quota}). When the store is full in total, the heaviest source gives up
 * its oldest entries (an eighth of them per eviction) so that a newcomer is remembered: one
 * flooding source cannot lock everyone else out. OVERLOADED is answered only when nothing can be
 * evicted.
 *
 * <p><b>Density.</b> IPv4 entries cost 16 bytes per table slot (no object per entry) plus the
 * reply array; see {@link DedupSegment}. Thread-safe; lock-striped by source, so one source's
 * messages serialise on one stripe while different sources proceed in parallel.
 */
public final class DeduplicationStore {

    /** EXCHANGE_LIFETIME with the default transmission parameters (RFC 7252 §4.8.2). */
    public static final Duration EXCHANGE_LIFETIME = Duration.ofSeconds(247);
    /** NON_LIFETIME with the default transmission parameters (RFC 7252 §4.8.2). */
    public static final Duration NON_LIFETIME = Duration.ofSeconds(145);

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int MAX_SECOND = 0x7FFFFFFF;

    private final DeduplicationMode mode;
    private final long exchangeLifetimeNanos;
    private final long nonLifetimeNanos;
    private final long originNanos;
    private final Quota quota;
    private final DedupSegment[] segments;
    private final LongAdder inserted = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder overloads = new LongAdder();
    private final LongAdder swept = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final PeriodicSweep periodicSweep = new PeriodicSweep("deduplication sweep", this::sweep);

    private DeduplicationStore(Builder b) {
        this.mode = b.mode;
        this.exchangeLifetimeNanos = b.exchangeLifetime.toNanos();
        this.nonLifetimeNanos = b.nonLifetime.toNanos();
        this.originNanos = b.clock.nanoTime();
        this.quota = new Quota(b.maxEntries, b.maxEntriesPerSource, b.maxBytes);
        this.segments = new DedupSegment[b.segments];
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new DedupSegment(quota);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Atomically looks up the message {@code (peer, mid)} and remembers it if it is new.
     *
     * @param confirmable {@code true} for CON (kept EXCHANGE_LIFETIME), {@code false} for NON
     *                    (kept NON_LIFETIME)
     * @param idempotent  {@code true} for GET, PUT, DELETE, FETCH; decides the lifetime in
     *                    {@link DeduplicationMode#IDEMPOTENT_RELAXED}
     * @param nowNanos    the current reading of the endpoint's {@link Clock}
     * @throws IllegalArgumentException if {@code mid} is outside 0..65535
     */
    public DedupResult lookupOrInsert(InetSocketAddress peer, int mid, boolean confirmable, boolean idempotent,
            long nowNanos) {
        Objects.requireNonNull(peer, "peer");
        checkMid(mid);
        if (mode == DeduplicationMode.OFF) {
            return DedupResult.NEW;
        }
        long lifetime = confirmable ? exchangeLifetimeNanos : nonLifetimeNanos;
        int newMeta = expirySecond(nowNanos, lifetime);
        if (mode == DeduplicationMode.IDEMPOTENT_RELAXED && idempotent) {
            newMeta |= DedupSegment.RELEASE_ON_COMPLETE;
        }
        int nowSec = second(nowNanos);
        long key = ipv4Key(peer, mid);
        DedupResult result = insert(peer, mid, key, nowSec, newMeta);
        if (result.status() == DedupResult.Status.FULL) {
            // Full in total: the heaviest source gives up its oldest entries, not the newcomer.
            result = evictFromHeaviestSource() > 0 ? insert(peer, mid, key, nowSec, newMeta) : DedupResult.OVERLOADED;
            if (result.status() == DedupResult.Status.FULL) {
                result = DedupResult.OVERLOADED;
            }
        }
        switch (result.status()) {
            case NEW -> inserted.increment();
            case OVERLOADED -> overloads.increment();
            default -> duplicates.increment();
        }
        return result;
    }

    private DedupResult insert(InetSocketAddress peer, int mid, long key, int nowSec, int newMeta) {
        return key != -1
                ? segmentOf(key >>> 32).lookupOrInsert(key, nowSec, newMeta)
                : segmentOf(Source.of(peer)).lookupOrInsert(new DedupSegment.OtherKey(peer, mid), nowSec, newMeta);
    }

    /**
     * Thins out the heaviest source of the whole store (each segment knows its own; the heaviest of
     * those is taken), locking one segment at a time.
     *
     * @return the number of entries evicted
     */
    private int evictFromHeaviestSource() {
        DedupSegment heaviest = null;
        int most = 0;
        for (DedupSegment segment : segments) {
            int n = segment.heaviestCount();
            if (n > most) {
                most = n;
                heaviest = segment;
            }
        }
        if (heaviest == null) {
            return 0;
        }
        int n = heaviest.evictOldestOfHeaviest();
        evictions.add(n);
        return n;
    }

    /**
     * Records the encoded reply sent for a NEW message, to be resent for its duplicates; in
     * {@link DeduplicationMode#IDEMPOTENT_RELAXED} an idempotent request's entry is removed
     * instead. Also replaces an earlier empty ACK once the separate response is known.
     *
     * @param encodedReply kept by reference: the caller must not modify it afterwards
     * @return {@code false} if the message is not remembered (OFF mode, swept, or forgotten)
     */
    public boolean complete(InetSocketAddress peer, int mid, byte[] encodedReply) {
        Objects.requireNonNull(encodedReply, "encodedReply");
        return completeWith(peer, mid, encodedReply, -1);
    }

    /**
     * Like {@link #complete(InetSocketAddress, int, byte[])} for a reply in the first {@code length}
     * bytes of a buffer the caller reuses: the store copies them if, and only if, it keeps them, so
     * a reply that is not remembered (a relaxed idempotent request, OFF mode) costs no array.
     */
    public boolean complete(InetSocketAddress peer, int mid, byte[] buffer, int length) {
        Objects.requireNonNull(buffer, "buffer");
        if (length < 0 || length > buffer.length) {
            throw new IllegalArgumentException("length " + length + " outside a buffer of " + buffer.length);
        }
        return completeWith(peer, mid, buffer, length);
    }

    /**
     * Records that an empty ACK was sent for a NEW CON request whose response follows
     * separately; its duplicates then get {@link DedupResult#emptyAck()}. The entry stays even in
     * {@link DeduplicationMode#IDEMPOTENT_RELAXED} until {@link #complete} is called.
     *
     * @return {@code false} if the message is not remembered
     */
    public boolean completeEmptyAck(InetSocketAddress peer, int mid) {
        return completeWith(peer, mid, DedupSegment.EMPTY_ACK, -1);
    }

    /**
     * The exchange of a request answered with an empty ACK has ended (its separate response was
     * acknowledged, rejected or timed out). In {@link DeduplicationMode#IDEMPOTENT_RELAXED} an
     * idempotent request's entry is removed now, as if {@link #complete} had been called; in the
     * other modes, and for non-idempotent requests, the empty ACK stays the answer to duplicates
     * until the lifetime ends. An entry whose answer is not the empty ACK (for example a newer
     * message with the same MID) is left alone.
     *
     * @return {@code true} if the entry was removed
     */
    public boolean release(InetSocketAddress peer, int mid) {
        Objects.requireNonNull(peer, "peer");
        checkMid(mid);
        long key = ipv4Key(peer, mid);
        return key != -1
                ? segmentOf(key >>> 32).release(key)
                : segmentOf(Source.of(peer)).release(new DedupSegment.OtherKey(peer, mid));
    }

    /**
     * Removes the message's entry, e.g. when its processing was abandoned without an answer, so
     * that a retransmission is processed as new.
     *
     * @return {@code false} if it was not remembered
     */
    public boolean forget(InetSocketAddress peer, int mid) {
        Objects.requireNonNull(peer, "peer");
        checkMid(mid);
        long key = ipv4Key(peer, mid);
        return key != -1
                ? segmentOf(key >>> 32).remove(key)
                : segmentOf(Source.of(peer)).remove(new DedupSegment.OtherKey(peer, mid));
    }

    private boolean completeWith(InetSocketAddress peer, int mid, byte[] reply, int length) {
        Objects.requireNonNull(peer, "peer");
        checkMid(mid);
        if (mode == DeduplicationMode.OFF) {
            return false;
        }
        long key = ipv4Key(peer, mid);
        return key != -1
                ? segmentOf(key >>> 32).complete(key, reply, length)
                : segmentOf(Source.of(peer)).complete(new DedupSegment.OtherKey(peer, mid), reply, length);
    }

    /**
     * Removes every entry whose lifetime has passed at {@code nowNanos}.
     *
     * @return the number of entries removed
     */
    public int sweep(long nowNanos) {
        int nowSec = second(nowNanos);
        int removed = 0;
        for (DedupSegment segment : segments) {
            removed += segment.sweep(nowSec);
        }
        swept.add(removed);
        return removed;
    }

    /**
     * Runs {@link #sweep} every {@code period} on {@code scheduler}, reading its clock.
     *
     * @throws IllegalStateException if already started
     */
    public void start(Scheduler scheduler, Duration period) {
        periodicSweep.start(scheduler, period);
    }

    /** Cancels the periodic sweep; idempotent. Entries stay. */
    public void stop() {
        periodicSweep.stop();
    }

    /** Entries remembered now, including expired ones not yet swept. */
    public int size() {
        return quota.entries();
    }

    /** Estimated heap the entries and their stored replies hold now (see {@link Quota}). */
    public long estimatedBytes() {
        return quota.bytes();
    }

    /** Sources (IPv4 addresses, IPv6 /64s) with at least one remembered entry. */
    public int sources() {
        int n = 0;
        for (DedupSegment segment : segments) {
            n += segment.sources();
        }
        return n;
    }

    /** Entries evicted so far because the store was full. */
    public long evictions() {
        return evictions.sum();
    }

    public DeduplicationMode mode() {
        return mode;
    }

    public DedupStatistics statistics() {
        return new DedupStatistics(quota.entries(), inserted.sum(), duplicates.sum(), overloads.sum(), swept.sum());
    }

    /** Slots of all IPv4 tables; for tests that check the tables shrink after a sweep. */
    int capacity() {
        int n = 0;
        for (DedupSegment segment : segments) {
            n += segment.capacity();
        }
        return n;
    }

    private int second(long nowNanos) {
        long s = Math.floorDiv(nowNanos - originNanos, NANOS_PER_SECOND);
        return (int) Math.max(Integer.MIN_VALUE, Math.min(MAX_SECOND, s));
    }

    /** Receipt plus lifetime, rounded up to a whole second, within 0..MAX_SECOND. */
    private int expirySecond(long nowNanos, long lifetimeNanos) {
        long s = -Math.floorDiv(-(nowNanos - originNanos + lifetimeNanos), NANOS_PER_SECOND);
        return (int) Math.max(0, Math.min(MAX_SECOND, s));
    }

    private DedupSegment segmentOf(long ipv4Source) {
        return segments[DedupSegment.mix(ipv4Source) & (segments.length - 1)];
    }

    private DedupSegment segmentOf(Source source) {
        return segments[source.hashCode() & (segments.length - 1)];
    }

    /**
     * {@code address << 32 | port << 16 | mid} for a resolved IPv4 peer, else -1 (never a valid
     * packed key: it would need port 65535 at 255.255.255.255, a broadcast source).
     */
    private static long ipv4Key(InetSocketAddress peer, int mid) {
        long ip = Source.ipv4(peer.getAddress());
        return ip < 0 ? -1 : (ip << 32) | ((long) peer.getPort() << 16) | mid;
    }

    private static void checkMid(int mid) {
        if ((mid & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("MID must be 0..65535: " + mid);
        }
    }

    /** Settings of a {@link DeduplicationStore}; validated on {@link #build()}. */
    public static final class Builder {
        private DeduplicationMode mode = DeduplicationMode.IDEMPOTENT_RELAXED;
        private Duration exchangeLifetime = EXCHANGE_LIFETIME;
        private Duration nonLifetime = NON_LIFETIME;
        private int maxEntries = 1_000_000;
        private int maxEntriesPerSource = 65_536;
        private long maxBytes = Long.MAX_VALUE;
        private int segments = 64;
        private Clock clock = Clock.system();

        private Builder() {
        }

        /** Default {@link DeduplicationMode#IDEMPOTENT_RELAXED}. */
        public Builder mode(DeduplicationMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** How long CON messages are remembered; default 247 s. */
        public Builder exchangeLifetime(Duration lifetime) {
            this.exchangeLifetime = Objects.requireNonNull(lifetime, "exchangeLifetime");
            return this;
        }

        /** How long NON messages are remembered; default 145 s. */
        public Builder nonLifetime(Duration lifetime) {
            this.nonLifetime = Objects.requireNonNull(lifetime, "nonLifetime");
            return this;
        }

        /** Cap on remembered entries in total; default 1,000,000. */
        public Builder maxEntries(int maxEntries) {
            this.maxEntries = maxEntries;
            return this;
        }

        /** Cap on remembered entries per source (IPv4 address, IPv6 /64); default 65,536. */
        public Builder maxEntriesPerSource(int maxEntriesPerSource) {
            this.maxEntriesPerSource = maxEntriesPerSource;
            return this;
        }

        /**
         * Cap on the estimated heap the entries and their stored replies hold; default unbounded
         * (only the entry caps apply). See {@link Quota} for the estimate.
         */
        public Builder maxBytes(long maxBytes) {
            this.maxBytes = maxBytes;
            return this;
        }

        /** Number of lock stripes, a power of two; default 64. */
        public Builder segments(int segments) {
            this.segments = segments;
            return this;
        }

        /**
         * The clock whose readings are passed as {@code nowNanos}; read once at build time as
         * the origin of the store's second-granular timestamps. Default {@link Clock#system()}.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public DeduplicationStore build() {
            requirePositive(exchangeLifetime, "exchangeLifetime");
            requirePositive(nonLifetime, "nonLifetime");
            if (maxBytes < 1) {
                throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
            }
            if (maxEntries < 1) {
                throw new IllegalArgumentException("maxEntries must be positive: " + maxEntries);
            }
            if (maxEntriesPerSource < 1) {
                throw new IllegalArgumentException("maxEntriesPerSource must be positive: " + maxEntriesPerSource);
            }
            if (segments < 1 || segments > 65_536 || Integer.bitCount(segments) != 1) {
                throw new IllegalArgumentException("segments must be a power of two in 1..65536: " + segments);
            }
            return new DeduplicationStore(this);
        }

        private static void requirePositive(Duration d, String name) {
            if (d.isNegative() || d.isZero() || d.getSeconds() >= MAX_SECOND / 2) {
                throw new IllegalArgumentException(name + " must be positive and below 34 years: " + d);
            }
        }
    }
}
