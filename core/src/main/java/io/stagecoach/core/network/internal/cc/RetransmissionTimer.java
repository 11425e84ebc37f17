package io.stagecoach.core.network.internal.cc;

/**
 * The retransmission timeout of one confirmable exchange (RFC 7252 §4.2), created by
 * {@link PeerCongestionState#startExchange}.
 *
 * <p>Not thread-safe: the exchange that owns it serializes its calls (as it already must for its
 * own retransmission state). Completing it reports the outcome to the peer state exactly once.
 */
public final class RetransmissionTimer {

    private final PeerCongestionState peer;
    private final long startNanos;
    private final long firstTimeoutNanos;
    private final double backoffFactor;
    private long timeoutNanos;
    private int retransmissions;
    private boolean finished;

    RetransmissionTimer(PeerCongestionState peer, long startNanos, long firstTimeoutNanos, double backoffFactor) {
        this.peer = peer;
        this.startNanos = startNanos;
        this.firstTimeoutNanos = firstTimeoutNanos;
        this.backoffFactor = backoffFactor;
        this.timeoutNanos = firstTimeoutNanos;
    }

    /** The timeout to wait after the latest (re)transmission before retransmitting. */
    public long timeoutNanos() {
        return timeoutNanos;
    }

    /** The timeout that followed the first transmission. */
    public long firstTimeoutNanos() {
        return firstTimeoutNanos;
    }

    /** Factor applied by {@link #onTimeout()}: 2 for Default CoAP, the CoCoA VBF otherwise. */
    public double backoffFactor() {
        return backoffFactor;
    }

    /** Retransmissions sent so far (number of {@link #onTimeout()} calls). */
    public int retransmissions() {
        return retransmissions;
    }

    /** Clock reading at the first transmission. */
    public long startNanos() {
        return startNanos;
    }

    public boolean isFinished() {
        return finished;
    }

    /**
     * The timer fired and the caller retransmits now: backs the timeout off by
     * {@link #backoffFactor()}, truncated at {@link CongestionSettings#maxBackedOffRto()}.
     * The caller checks MAX_RETRANSMIT before calling.
     *
     * @return the timeout to wait after this retransmission
     * @throws IllegalStateException if the exchange already completed
     */
    public long onTimeout() {
        requireRunning();
        retransmissions++;
        timeoutNanos = backOff(timeoutNanos, backoffFactor, peer.maxTimeoutNanos);
        return timeoutNanos;
    }

    /**
     * The ACK (empty or piggybacked) or a response to the confirmable message arrived; the RTT
     * sample is {@code nowNanos - startNanos()}.
     *
     * @throws IllegalArgumentException if {@code nowNanos} is before the first transmission
     * @throws IllegalStateException if the exchange already completed
     */
    public void onSuccess(long nowNanos) {
        requireRunning();
        if (nowNanos - startNanos < 0) {
            throw new IllegalArgumentException("completion at " + nowNanos + " precedes first transmission at " + startNanos);
        }
        finished = true;
        peer.complete(this, nowNanos);
    }

    /**
     * The exchange gave up (MAX_RETRANSMIT reached and the last timeout expired, RFC 7252 §4.2).
     *
     * @throws IllegalStateException if the exchange already completed
     */
    public void onFailure(long nowNanos) {
        requireRunning();
        finished = true;
        peer.fail(this, nowNanos);
    }

    /** {@code current × factor}, rounded, at most {@code maxNanos}. */
    static long backOff(long currentNanos, double factor, long maxNanos) {
        double next = currentNanos * factor;
        return next >= maxNanos ? maxNanos : Math.round(next);
    }

    private void requireRunning() {
        if (finished) {
            throw new IllegalStateException("exchange already completed");
        }
    }

    @Override
    public String toString() {
        return "RetransmissionTimer{timeout=" + timeoutNanos + "ns, retransmissions=" + retransmissions
                + ", factor=" + backoffFactor + (finished ? ", finished" : "") + '}';
    }
}
