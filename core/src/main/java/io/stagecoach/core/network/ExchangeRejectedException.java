package io.stagecoach.core.network;

/** The peer answered with a Reset (RST) message: it could not process the message (RFC 7252 §4.2, §4.3). */
public class ExchangeRejectedException extends ExchangeFailedException {
    private static final long serialVersionUID = 1L;

    public ExchangeRejectedException(String message) {
        super(message);
    }
}
