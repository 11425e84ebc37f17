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
 * {@code maxPeers} peers are tracked (a new peer beyond that gets {@link MidExhaustedException}).
 * About 600 bytes per tracked peer. Thread-safe.
 */
public final class MessageIdProvider {

    private final long lifetimeNanos;
    private final Duration lifetime;
    private final int maxPeers;
    private final RandomGenerator random;
    private final ConcurrentHashMap<InetSocketAddress, MidWindow> windows = new ConcurrentHashMap<>();
    private final PeriodicSweep periodicSweep = new PeriodicSweep("message ID sweep", this::sweep);

    /**
     * @param exchangeLifetime how long a MID stays reserved; RFC 7252 default 247 s
     * @param maxPeers         most peers tracked at once
     * @param random           source of the random start MIDs; must be thread-safe (e.g.
     *                         {@link SecureRandom}) or confined to one thread
     */
    public MessageIdProvider(Duration exchangeLifetime, int maxPeers, RandomGenerator random) {
        if (exchangeLifetime.isNegative() || exchangeLifetime.isZero()) {
            throw new IllegalArgumentException("exchangeLifetime must be positive: " + exchangeLifetime);
        }
        if (maxPeers < 1) {
            throw new IllegalArgumentException("maxPeers must be positive: " + maxPeers);
        }
        this.lifetime = exchangeLifetime;
        this.lifetimeNanos = exchangeLifetime.toNanos();
        this.maxPeers = maxPeers;
        this.random = Objects.requireNonNull(random, "random");
    }

    /** EXCHANGE_LIFETIME 247 s, at most 100,000 peers, start MIDs from a {@link SecureRandom}. */
    public MessageIdProvider() {
        this(Duration.ofSeconds(247), 100_000, new SecureRandom());
    }

    /**
     * The next MID (0..65535) for a message to {@code peer}.
     *
     * @param nowNanos the current reading of the endpoint's clock
     * @throws MidExhaustedException if all 65,536 MIDs of the peer were used within the lifetime,
     *                               or {@code maxPeers} other peers are tracked
     */
    public int nextMid(InetSocketAddress peer, long nowNanos) {
        Objects.requireNonNull(peer, "peer");
        while (true) {
            MidWindow window = windows.get(peer);
            if (window == null) {
                // size() is a sum over counter cells: the cap may be overshot by concurrent new peers,
                // by at most the number of calling threads.
                if (windows.size() >= maxPeers) {
                    throw MidExhaustedException.tooManyPeers(peer, maxPeers);
                }
                int start;
                synchronized (random) {
                    start = random.nextInt(MidWindow.MID_COUNT);
                }
                MidWindow created = new MidWindow(start, nowNanos);
                window = windows.putIfAbsent(peer, created);
                if (window == null) {
                    window = created;
                }
            }
            int mid = window.next(nowNanos, lifetimeNanos);
            if (mid >= 0) {
                return mid;
            }
            if (mid == MidWindow.EXHAUSTED) {
                throw MidExhaustedException.allUsed(peer, lifetime);
            }
            windows.remove(peer, window); // RETIRED by a concurrent sweep: take a fresh window
        }
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
                dropped++;
            }
        }
        return dropped;
    }

    /** Peers with state now. */
    public int trackedPeers() {
        return windows.size();
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
