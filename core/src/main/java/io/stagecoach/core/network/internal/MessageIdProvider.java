package io.stagecoach.core.network.internal;

import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * Hands out message IDs for outgoing CON and NON messages (RFC 7252 §4.4): per peer, starting at
 * a random MID, then sequential, and never reusing a MID for the same peer within
 * EXCHANGE_LIFETIME. That caps a peer at 65,536 messages per 247 s (~265/s sustained); beyond it
 * {@link #nextMid} throws {@link MidExhaustedException}.
 *
 * <p>Peer state is bounded: {@link #sweep} (run periodically by {@link #start}) drops peers none
 * of whose MIDs was used within the lifetime — a later message to such a peer starts afresh at a
 * new random MID, which is safe because all its earlier MIDs have expired — and at most
 * {@code maxPeers} peers are tracked in all and {@code maxPeersPerSource} per source (IPv4
 * address, IPv6 /64: one host cannot take every slot by rotating ports); a new peer beyond either
 * gets {@link MidExhaustedException}. About 600 bytes per tracked peer. Keys resist hash flooding
 * ({@link PeerKey}). Thread-safe.
 */
public final class MessageIdProvider {

    private final long lifetimeNanos;
    private final Duration lifetime;
    private final int maxPeers;
    private final int maxPeersPerSource;
    private final RandomGenerator random;
    private final ConcurrentHashMap<PeerKey, MidWindow> windows = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Source, Integer> perSource = new ConcurrentHashMap<>();
    private final PeriodicSweep periodicSweep = new PeriodicSweep("message ID sweep", this::sweep);

    /**
     * @param exchangeLifetime how long a MID stays reserved; RFC 7252 default 247 s
     * @param maxPeers         most peers tracked at once
     * @param maxPeersPerSource most peers of one source tracked at once
     * @param random           source of the random start MIDs; must be thread-safe (e.g.
     *                         {@link SecureRandom}) or confined to one thread
     */
    public MessageIdProvider(Duration exchangeLifetime, int maxPeers, int maxPeersPerSource, RandomGenerator random) {
        if (exchangeLifetime.isNegative() || exchangeLifetime.isZero()) {
            throw new IllegalArgumentException("exchangeLifetime must be positive: " + exchangeLifetime);
        }
        if (maxPeers < 1 || maxPeersPerSource < 1) {
            throw new IllegalArgumentException("peer limits must be positive: " + maxPeers + ", " + maxPeersPerSource);
        }
        this.maxPeersPerSource = maxPeersPerSource;
        this.lifetime = exchangeLifetime;
        this.lifetimeNanos = exchangeLifetime.toNanos();
        this.maxPeers = maxPeers;
        this.random = Objects.requireNonNull(random, "random");
    }

    /** EXCHANGE_LIFETIME 247 s, at most 100,000 peers (1,000 per source), start MIDs from a {@link SecureRandom}. */
    public MessageIdProvider() {
        this(Duration.ofSeconds(247), 100_000, 1_000, new SecureRandom());
    }

    /**
     * The next MID (0..65535) for a message to {@code peer}.
     *
     * @param nowNanos the current reading of the endpoint's clock
     * @throws MidExhaustedException if all 65,536 MIDs of the peer were used within the lifetime,
     *                               or {@code maxPeers} other peers are tracked
     */
    public int nextMid(InetSocketAddress peer, long nowNanos) {
        PeerKey key = new PeerKey(peer);
        while (true) {
            MidWindow window = windows.get(key);
            if (window == null) {
                window = newWindow(key, nowNanos);
            }
            int mid = window.next(nowNanos, lifetimeNanos);
            if (mid >= 0) {
                return mid;
            }
            if (mid == MidWindow.EXHAUSTED) {
                throw MidExhaustedException.allUsed(peer, lifetime);
            }
            remove(key, window); // RETIRED by a concurrent sweep: take a fresh window
        }
    }

    private MidWindow newWindow(PeerKey key, long nowNanos) {
        // size() is a sum over counter cells: the cap may be overshot by concurrent new peers,
        // by at most the number of calling threads.
        if (windows.size() >= maxPeers) {
            throw MidExhaustedException.tooManyPeers(key.address(), maxPeers);
        }
        Source source = Source.of(key.address());
        boolean[] granted = new boolean[1];
        perSource.compute(source, (s, n) -> {
            int held = n == null ? 0 : n;
            if (held >= maxPeersPerSource) {
                return n;
            }
            granted[0] = true;
            return held + 1;
        });
        if (!granted[0]) {
            throw MidExhaustedException.tooManyPeers(key.address(), maxPeersPerSource);
        }
        int start;
        synchronized (random) {
            start = random.nextInt(MidWindow.MID_COUNT);
        }
        MidWindow created = new MidWindow(start, nowNanos);
        MidWindow existing = windows.putIfAbsent(key, created);
        if (existing != null) {
            release(source); // another thread made it first
            return existing;
        }
        return created;
    }

    private void remove(PeerKey key, MidWindow window) {
        if (windows.remove(key, window)) {
            release(Source.of(key.address()));
        }
    }

    private void release(Source source) {
        perSource.computeIfPresent(source, (s, n) -> n <= 1 ? null : n - 1);
    }

    /**
     * Drops the state of peers with no MID used within the lifetime.
     *
     * @return the number of peers dropped
     */
    public int sweep(long nowNanos) {
        int dropped = 0;
        for (var e : windows.entrySet()) {
            if (e.getValue().retireIfIdle(nowNanos, lifetimeNanos) && windows.remove(e.getKey(), e.getValue())) {
                release(Source.of(e.getKey().address()));
                dropped++;
            }
        }
        return dropped;
    }

    /** Peers with state now. */
    public int trackedPeers() {
        return windows.size();
    }

    /** Sources with at least one tracked peer. */
    public int trackedSources() {
        return perSource.size();
    }

    /**
     * Runs {@link #sweep} every {@code period} on {@code scheduler}, reading its clock.
     *
     * @throws IllegalStateException if already started
     */
    public void start(Scheduler scheduler, Duration period) {
        periodicSweep.start(scheduler, period);
    }

    /** Cancels the periodic sweep; idempotent. */
    public void stop() {
        periodicSweep.stop();
    }
}
