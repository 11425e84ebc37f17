package io.stagecoach.core.config;

/**
 * How the retransmission timeout (RTO) of Confirmable messages is chosen and backed off.
 *
 * <p>The full-backoff variants are from Järvinen et al., "Is CoAP Congestion Safe?" (2018),
 * §4.2; they keep a backed-off RTO after retransmissions instead of starting the next exchange
 * from the initial RTO, which the paper shows avoids congestion collapse with large buffers.
 */
public enum CongestionControlMode {

    /** RFC 7252 §4.2: random initial RTO in [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR], doubled per retransmission. */
    DEFAULT,

    /** CoCoA (draft-ietf-core-cocoa): RTO from strong and weak RTT estimates per peer. */
    COCOA,

    /** DEFAULT, but the backed-off RTO is kept until an exchange completes without retransmission (Karn-like). */
    DEFAULT_FULL_BACKOFF_1,

    /** DEFAULT, but the backed-off RTO is halved after each successful exchange until the initial RTO is reached. */
    DEFAULT_FULL_BACKOFF_2,

    /** COCOA, keeping the backed-off RTO after retransmissions as in DEFAULT_FULL_BACKOFF_1. */
    COCOA_FULL_BACKOFF_1,

    /** COCOA, backing off from the maximum of the current RTO and the newly updated estimate after retransmitting. */
    COCOA_FULL_BACKOFF_2
}
