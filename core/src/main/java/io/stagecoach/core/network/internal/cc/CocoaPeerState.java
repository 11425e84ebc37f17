package io.stagecoach.core.network.internal.cc;

import io.stagecoach.core.config.CongestionControlMode.FullBackoff;
import java.util.random.RandomGenerator;

/**
 * CoCoA (draft-ietf-core-cocoa-03, "CoAP Simple Congestion Control/Advanced") and its
 * full-backoff variants (Järvinen et al., ANRW '18, §4.2).
 *
 * <p>CoCoA, per the draft:
 * <ul>
 *   <li>§4.1/§4.2.1: both estimators and the overall RTO start at 2 s
 *       ({@link CongestionSettings#initialRto()}).
 *   <li>§4.2: an exchange completed without retransmission feeds its RTT to the strong estimator
 *       (K = 4), then {@code RTO := 0.5 × E_strong + 0.5 × RTO}; one completed after one or two
 *       retransmissions feeds the RTT measured from the <em>initial</em> transmission to the weak
 *       estimator (K = 1), then {@code RTO := 0.25 × E_weak + 0.75 × RTO}; later completions and
 *       failures update nothing.
 *   <li>§4.2.1: the initial timeout is dithered in [RTO, ACK_RANDOM_FACTOR × RTO]; the variable
 *       backoff factor is 3 if RTO &lt; 1 s, 1.5 if RTO &gt; 3 s, 2 otherwise. Decision: the factor
 *       is chosen from the (undithered) overall RTO when the exchange starts and kept for all its
 *       retransmissions. The draft's truncation "at 32 seconds" is {@link
 *       CongestionSettings#maxBackedOffRto()} (default 60 s as in the paper; set 32 s for the
 *       draft).
 *   <li>§4.3 aging, applied lazily (as the draft allows) whenever the RTO is read or updated: if
 *       RTO &lt; 1 s and not updated for 16 × RTO, it doubles; if RTO &gt; 3 s and not updated for
 *       4 × RTO, {@code RTO := 1 s + 0.5 × RTO}; repeated while the condition holds, each step
 *       consuming its own idle period. Decision: aging applies to the overall RTO only (the one
 *       used for timeouts); the estimators keep their SRTT/RTTVAR.
 *   <li>Not implemented: the §4.1 blind RTO for parallel exchanges (2 s × number of exchanges in
 *       progress); the caller runs NSTART = 1.
 * </ul>
 *
 * <p>Full backoff (paper §4.2):
 * <ul>
 *   <li>FB1: after an exchange with retransmissions, the timeout in force when it ended is the
 *       first timeout of the next exchange (no new dithering); a clean exchange drops it.
 *   <li>FB2: after an exchange with retransmissions whose RTT updated the RTO (one or two
 *       retransmissions), take {@code base = max(first timeout of the exchange, updated RTO)} and
 *       back it off as many times as the exchange was retransmitted, with the VBF of {@code base};
 *       the result is the first timeout of the next exchange. Decision: "current RTO" in the paper
 *       is read as the first timeout the exchange actually used; without an update (three or more
 *       retransmissions) FB2 behaves as FB1; a clean exchange drops the carried timeout.
 *   <li>Both: an exchange that gave up carries its last timeout backed off once more (the final
 *       expiry counts as a timeout).
 * </ul>
 */
final class CocoaPeerState extends PeerCongestionState {

    private static final long ONE_SECOND = 1_000_000_000L;
    private static final long THREE_SECONDS = 3 * ONE_SECOND;

    private final FullBackoff fullBackoff;
    private final RtoEstimator strong;
    private final RtoEstimator weak;
    private long rtoNanos;
    private long lastUpdateNanos;
    private long carriedNanos;

    CocoaPeerState(CongestionSettings settings, FullBackoff fullBackoff, long nowNanos) {
        super(settings);
        this.fullBackoff = fullBackoff;
        long initial = settings.initialRto().toNanos();
        this.strong = new RtoEstimator(4, initial);
        this.weak = new RtoEstimator(1, initial);
        this.rtoNanos = initial;
        this.lastUpdateNanos = nowNanos;
    }

    /** draft-ietf-core-cocoa-03 §4.2.1 variable backoff factor. */
    static double variableBackoffFactor(long rtoNanos) {
        if (rtoNanos < ONE_SECOND) {
            return 3.0;
        }
        return rtoNanos > THREE_SECONDS ? 1.5 : 2.0;
    }

    @Override
    RetransmissionTimer newTimer(long nowNanos, RandomGenerator random) {
        age(nowNanos);
        long first = carriedNanos > 0 ? carriedNanos : dither(rtoNanos, random);
        return new RetransmissionTimer(this, nowNanos, first, variableBackoffFactor(rtoNanos));
    }

    @Override
    void completed(RetransmissionTimer timer, long nowNanos) {
        age(nowNanos);
        long rtt = nowNanos - timer.startNanos();
        int retransmissions = timer.retransmissions();
        boolean updated = true;
        if (retransmissions == 0) {
            setRto(strong.update(rtt) / 2 + rtoNanos / 2, nowNanos);
        } else if (retransmissions <= 2) {
            setRto(weak.update(rtt) / 4 + rtoNanos - rtoNanos / 4, nowNanos);
        } else {
            updated = false;
        }
        carryAfterSuccess(timer, updated);
    }

    private void carryAfterSuccess(RetransmissionTimer timer, boolean updated) {
        if (fullBackoff == FullBackoff.NONE) {
            return;
        }
        if (timer.retransmissions() == 0) {
            carriedNanos = 0;
        } else if (fullBackoff == FullBackoff.FB2 && updated) {
            long base = Math.max(timer.firstTimeoutNanos(), rtoNanos);
            double factor = variableBackoffFactor(base);
            long carried = Math.min(base, maxTimeoutNanos);
            for (int i = 0; i < timer.retransmissions(); i++) {
                carried = RetransmissionTimer.backOff(carried, factor, maxTimeoutNanos);
            }
            carriedNanos = carried;
        } else {
            carriedNanos = timer.timeoutNanos();
        }
    }

    @Override
    void failed(RetransmissionTimer timer, long nowNanos) {
        if (fullBackoff != FullBackoff.NONE) {
            carriedNanos = RetransmissionTimer.backOff(timer.timeoutNanos(), timer.backoffFactor(), maxTimeoutNanos);
        }
    }

    private void setRto(long value, long nowNanos) {
        rtoNanos = Math.max(GRANULARITY_NANOS, Math.min(value, maxTimeoutNanos));
        lastUpdateNanos = nowNanos;
    }

    /** draft-ietf-core-cocoa-03 §4.3, computed cumulatively for the idle time up to now. */
    private void age(long nowNanos) {
        while (true) {
            long idle = nowNanos - lastUpdateNanos;
            if (rtoNanos < ONE_SECOND && idle >= 16 * rtoNanos) {
                lastUpdateNanos += 16 * rtoNanos;
                rtoNanos *= 2;
            } else if (rtoNanos > THREE_SECONDS && idle >= 4 * rtoNanos) {
                lastUpdateNanos += 4 * rtoNanos;
                rtoNanos = ONE_SECOND + rtoNanos / 2;
            } else {
                return;
            }
        }
    }

    @Override
    public synchronized long rtoNanos(long nowNanos) {
        age(nowNanos);
        return rtoNanos;
    }

    @Override
    public synchronized long carriedTimeoutNanos() {
        return carriedNanos;
    }

    /** Strong estimator's RTO (E_strong), for tests and diagnostics. */
    synchronized long strongRtoNanos() {
        return strong.rtoNanos();
    }

    /** Weak estimator's RTO (E_weak), for tests and diagnostics. */
    synchronized long weakRtoNanos() {
        return weak.rtoNanos();
    }

    @Override
    public synchronized String toString() {
        return "CocoaPeerState{" + fullBackoff + ", rto=" + rtoNanos + "ns, strong=" + strong + ", weak=" + weak
                + ", carried=" + carriedNanos + "ns}";
    }
}
