package io.stagecoach.core.network.internal.cc;

/**
 * One RFC 6298 §2 RTO estimator with a configurable RTT-variance multiplier K
 * (draft-ietf-core-cocoa-03 §4.2.1: K = 4 for the strong estimator, K = 1 for the weak one), no
 * 1 s minimum (RFC 6298 §2.4 is not applied by CoCoA, whose VBF handles RTOs below 1 s).
 * Not thread-safe; guarded by the owning {@link CocoaPeerState}.
 */
final class RtoEstimator {

    private final int k;
    private long srttNanos;
    private long rttvarNanos;
    private long rtoNanos;
    private boolean sampled;

    RtoEstimator(int k, long initialRtoNanos) {
        this.k = k;
        this.rtoNanos = initialRtoNanos;
    }

    /** RFC 6298 §2.2 (first sample) or §2.3 (later samples), alpha = 1/8, beta = 1/4. */
    long update(long rttNanos) {
        if (!sampled) {
            srttNanos = rttNanos;
            rttvarNanos = rttNanos / 2;
            sampled = true;
        } else {
            // RTTVAR uses the SRTT from before this sample, as RFC 6298 §2.3 requires.
            rttvarNanos = (3 * rttvarNanos + Math.abs(srttNanos - rttNanos)) / 4;
            srttNanos = (7 * srttNanos + rttNanos) / 8;
        }
        rtoNanos = srttNanos + Math.max(PeerCongestionState.GRANULARITY_NANOS, k * rttvarNanos);
        return rtoNanos;
    }

    long rtoNanos() {
        return rtoNanos;
    }

    long srttNanos() {
        return srttNanos;
    }

    long rttvarNanos() {
        return rttvarNanos;
    }

    @Override
    public String toString() {
        return "RtoEstimator{K=" + k + ", srtt=" + srttNanos + "ns, rttvar=" + rttvarNanos + "ns, rto=" + rtoNanos + "ns}";
    }
}
