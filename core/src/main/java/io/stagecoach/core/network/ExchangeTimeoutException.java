package io.stagecoach.core.network;

/**
 * A confirmable message was retransmitted MAX_RETRANSMIT times without an ACK, RST or response
 * (RFC 7252 §4.2), a ping got no answer in time, or the caller's deadline passed.
 */
public class ExchangeTimeoutException extends ExchangeFailedException {
    private static final long serialVersionUID = 1L;

    public ExchangeTimeoutException(String message) {
        super(message);
    }
}
