package io.stagecoach.core.client;

/** The server answered with a Reset (RST): it could not process the request (RFC 7252 §4.2, §4.3). */
public class CoapRejectedException extends CoapException {
    private static final long serialVersionUID = 1L;

    public CoapRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
