package io.stagecoach.elements;

/** Why a connector did not send a datagram; handed to {@link SendCallback#onFailed(Throwable)}. */
public final class SendFailedException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The failure classes a caller may react to differently. */
    public enum Reason {
        /** Larger than the connector's maximum datagram size (or the simulated link's MTU). */
        OVERSIZE,
        /** The bounded outbound queue was full; the caller should back off. */
        QUEUE_FULL,
        /** The connector is not running. */
        STOPPED,
        /** The socket reported an error; see the cause. */
        IO_ERROR
    }

    private final Reason reason;

    public SendFailedException(Reason reason, String message) {
        this(reason, message, null);
    }

    public SendFailedException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
