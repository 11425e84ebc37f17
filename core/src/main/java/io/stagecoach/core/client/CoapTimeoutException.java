package io.stagecoach.core.client;

/**
 * No response arrived: all retransmissions of the confirmable request went unanswered
 * (RFC 7252 §4.2, MAX_TRANSMIT_WAIT) or the call's timeout ({@link CoapClient#timeout()}) passed.
 */
public class CoapTimeoutException extends CoapException {
    private static final long serialVersionUID = 1L;

    public CoapTimeoutException(String message) {
        super(message);
    }

    public CoapTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
