package io.stagecoach.core.network.internal.cc;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Congestion-control state for one peer endpoint, shared by all exchanges with that peer.
 *
 * <p>Thread-safe: every access holds this object's monitor for a few arithmetic operations, so
 * exchanges with the same peer may complete on different threads. Obtain instances from
 * {@link CongestionControl#newPeerState(long)}; the subclasses are internal to this package.
 *
 * <p>All times are readings of one monotonic nanosecond clock (the endpoint's
 * {@code io.stagecoach.elements.time.Clock}, virtual in simulations); nothing here reads a clock.
 */
public abstract class PeerCongestionState {

    /** Lower bound on any timeout; RFC 6298 §2 clock granularity G, also used by the estimators. */
    static final long GRANULARITY_NANOS = 1_000_000L;

    final CongestionSettings settings;
    final long maxTimeoutNanos;

    PeerCongestionState(CongestionSettings settings) {
        this.settings = settings;
        this.maxTimeoutNanos = settings.maxBackedOffRto().toNanos();
    }

    /**
     * Starts the retransmission timer of a new confirmable exchange. Call when the first
     * transmission is handed to the connector: RTT samples are measured from {@code nowNanos}
     * (draft-ietf-core-cocoa-03 §4.2: "the time from the initial transmission counts").
     *
     * @param random source of the dithering of the initial timeout (RFC 7252 §4.2); pass a seeded
     *     generator for reproducible simulations
     */
    public final RetransmissionTimer startExchange(long nowNanos, RandomGenerator random) {
        Objects.requireNonNull(random, "random");
        synchronized (this) {
            return newTimer(nowNanos, random);
        }
    }

    /**
     * The current RTO estimate without dithering and without carried backoff: the overall RTO of
     * CoCoA after aging (draft-ietf-core-cocoa-03 §4.2, §4.3; also the 1/RTO pacing limit for
     * non-confirmables of §5), or ACK_TIMEOUT for the Default CoAP family.
     */
    public abstract long rtoNanos(long nowNanos);

    /**
     * The backed-off timeout that the next exchange starts with (full-backoff modes), or 0 if the
     * next exchange draws a fresh initial timeout.
     */
    public abstract long carriedTimeoutNanos();

    /** Called under the monitor. */
    abstract RetransmissionTimer newTimer(long nowNanos, RandomGenerator random);

    /** Called under the monitor when {@code timer}'s exchange got its ACK or response. */
    abstract void completed(RetransmissionTimer timer, long nowNanos);

    /** Called under the monitor when {@code timer}'s exchange gave up after MAX_RETRANSMIT. */
    abstract void failed(RetransmissionTimer timer, long nowNanos);

    final synchronized void complete(RetransmissionTimer timer, long nowNanos) {
        completed(timer, nowNanos);
    }

    final synchronized void fail(RetransmissionTimer timer, long nowNanos) {
        failed(timer, nowNanos);
    }

    /** Uniform in [base, base × ACK_RANDOM_FACTOR], both ends inclusive (RFC 7252 §4.2). */
    final long dither(long baseNanos, RandomGenerator random) {
        long upper = Math.round(baseNanos * settings.ackRandomFactor());
        long value = upper > baseNanos ? random.nextLong(baseNanos, upper + 1) : baseNanos;
        return Math.min(value, maxTimeoutNanos);
    }
}
