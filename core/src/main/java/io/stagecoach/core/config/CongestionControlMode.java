package io.stagecoach.core.config;

/**
 * The congestion-control strategies of a CoAP endpoint for confirmable messages.
 *
 * <p>See {@code docs/congestion-control-strategies.md} for the formulas and the decisions taken
 * where the sources are ambiguous.
 */
public enum CongestionControlMode {

    /**
     * RFC 7252 §4.2: initial timeout uniformly random in [ACK_TIMEOUT, ACK_TIMEOUT ×
     * ACK_RANDOM_FACTOR], doubled on each timeout, no state kept between exchanges.
     */
    DEFAULT(false, FullBackoff.NONE),

    /**
     * draft-ietf-core-cocoa-03 §4: strong and weak RTO estimators, variable backoff factor, RTO
     * aging.
     */
    COCOA(true, FullBackoff.NONE),

    /**
     * Järvinen et al., ANRW '18, §4.2 "Fullbackoff1" for Default CoAP: the backed-off timeout of an
     * exchange that retransmitted is the first timeout of the next exchange, until an exchange
     * completes without retransmission (then the random initial timeout is used again).
     */
    DEFAULT_FULL_BACKOFF_1(false, FullBackoff.FB1),

    /**
     * Järvinen et al., ANRW '18, §4.2 "Fullbackoff2" for Default CoAP: like
     * {@link #DEFAULT_FULL_BACKOFF_1}, but a clean exchange only halves the carried timeout, until
     * it drops below ACK_TIMEOUT.
     */
    DEFAULT_FULL_BACKOFF_2(false, FullBackoff.FB2),

    /**
     * Järvinen et al., ANRW '18, §4.2 "Fullbackoff1" for CoCoA: CoCoA estimators, plus the
     * backed-off timeout of a retransmitted exchange is carried to the next exchange until a clean
     * exchange completes.
     */
    COCOA_FULL_BACKOFF_1(true, FullBackoff.FB1),

    /**
     * Järvinen et al., ANRW '18, §4.2 "Fullbackoff2" for CoCoA: after retransmitting, the maximum
     * of the exchange's initial timeout and the newly updated RTO is backed off again and carried
     * to the next exchange.
     */
    COCOA_FULL_BACKOFF_2(true, FullBackoff.FB2);

    /** How a backed-off timeout survives the end of its exchange (Järvinen et al., ANRW '18, §4.2). */
    public enum FullBackoff {
        /** Not at all: each exchange starts from the initial timeout. */
        NONE,
        /** "Fullbackoff1": carried to the next exchange until one completes without retransmission. */
        FB1,
        /** "Fullbackoff2": carried and backed off again, or halved by a clean exchange. */
        FB2
    }

    private final boolean cocoa;
    private final FullBackoff fullBackoff;

    CongestionControlMode(boolean cocoa, FullBackoff fullBackoff) {
        this.cocoa = cocoa;
        this.fullBackoff = fullBackoff;
    }

    /** True for the modes that estimate the RTO from measured round trips (CoCoA family). */
    public boolean measuresRtt() {
        return cocoa;
    }

    /** True for the modes that carry a backed-off timeout into the next exchange. */
    public boolean carriesBackoff() {
        return fullBackoff != FullBackoff.NONE;
    }

    /** The full-backoff variant of this mode. */
    public FullBackoff fullBackoff() {
        return fullBackoff;
    }
}
