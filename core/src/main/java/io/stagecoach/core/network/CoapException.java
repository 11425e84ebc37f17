package io.stagecoach.core.network;

/** Base of the failures an exchange reports to its listener. */
public class CoapException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CoapException(String message) {
        super(message);
    }

    public CoapException(String message, Throwable cause) {
        super(message, cause);
    }
}
