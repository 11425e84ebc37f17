package io.stagecoach.core.network;

/** The peer answered with a Reset (RST) message: it could not process the message (RFC 7252 §4.2, §4.3). */
public class CoapRejectedException extends CoapException {
    private static final long serialVersionUID = 1L;

    public CoapRejectedException(String message) {
        super(message);
    }
}
