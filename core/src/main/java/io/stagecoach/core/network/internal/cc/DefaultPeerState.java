package io.stagecoach.core.network.internal.cc;

import io.stagecoach.core.config.CongestionControlMode.FullBackoff;
import java.util.random.RandomGenerator;

/**
 * Default CoAP (RFC 7252 §4.2) and its full-backoff variants (Järvinen et al., "Is CoAP Congestion
 * Safe?", ANRW '18, §4.2).
 *
 * <ul>
 *   <li>DEFAULT: each exchange starts at a random timeout in [ACK_TIMEOUT, ACK_TIMEOUT ×
 *       ACK_RANDOM_FACTOR] and doubles it on each timeout; no state survives the exchange.
 *   <li>FB1: after an exchange that retransmitted, the timeout in force when it ended (its
 *       "backed off RTO") is the first timeout of the next exchange, which doubles it further if it
 *       expires again. An exchange completed without retransmission reverts to the random initial
 *       timeout.
 *   <li>FB2: as FB1, but a clean exchange halves the carried timeout instead of dropping it.
 *       Decision (the paper says "until the initial RTO value is reached" without fixing the
 *       value): the carried timeout is dropped once the halved value falls below ACK_TIMEOUT, the
 *       lower end of the initial range; a halved value in [ACK_TIMEOUT, …] is used as is, without
 *       new dithering.
 * </ul>
 *
 * <p>Decision for both variants: an exchange that gave up also carries its backoff; the final
 * expiry counts as one more timeout, so the next exchange starts at twice the last timeout.
 */
final class DefaultPeerState extends PeerCongestionState {

    private static final double BINARY_BACKOFF = 2.0;

    private final FullBackoff fullBackoff;
    private final long ackTimeoutNanos;
    /** First timeout of the next exchange, or 0 for a fresh random one. */
    private long carriedNanos;

    DefaultPeerState(CongestionSettings settings, FullBackoff fullBackoff) {
        super(settings);
        this.fullBackoff = fullBackoff;
        this.ackTimeoutNanos = settings.ackTimeout().toNanos();
    }

    @Override
    RetransmissionTimer newTimer(long nowNanos, RandomGenerator random) {
        long first = carriedNanos > 0 ? carriedNanos : dither(ackTimeoutNanos, random);
        return new RetransmissionTimer(this, nowNanos, first, BINARY_BACKOFF);
    }

    @Override
    void completed(RetransmissionTimer timer, long nowNanos) {
        if (fullBackoff == FullBackoff.NONE) {
            return;
        }
        if (timer.retransmissions() > 0) {
            carriedNanos = timer.timeoutNanos();
        } else if (fullBackoff == FullBackoff.FB1) {
            carriedNanos = 0;
        } else {
            long halved = carriedNanos / 2;
            carriedNanos = halved < ackTimeoutNanos ? 0 : halved;
        }
    }

    @Override
    void failed(RetransmissionTimer timer, long nowNanos) {
        if (fullBackoff != FullBackoff.NONE) {
            carriedNanos = RetransmissionTimer.backOff(timer.timeoutNanos(), BINARY_BACKOFF, maxTimeoutNanos);
        }
    }

    @Override
    public long rtoNanos(long nowNanos) {
        return ackTimeoutNanos;
    }

    @Override
    public synchronized long carriedTimeoutNanos() {
        return carriedNanos;
    }

    @Override
    public synchronized String toString() {
        return "DefaultPeerState{" + fullBackoff + ", carried=" + carriedNanos + "ns}";
    }
}
