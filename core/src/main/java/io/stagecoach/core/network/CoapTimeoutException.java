package io.stagecoach.core.network;

/**
 * A confirmable message was retransmitted MAX_RETRANSMIT times without an ACK, RST or response
 * (RFC 7252 §4.2), or a response did not arrive within the time the caller allowed.
 */
public class CoapTimeoutException extends CoapException {
    private static final long serialVersionUID = 1L;

    public CoapTimeoutException(String message) {
        super(message);
    }
}
