package io.stagecoach.core.network;

/**
 * Why an exchange ended without the response it waited for, as its {@link Exchange.Listener}
 * hears it: the endpoint stopped, the exchange was cancelled, or the message could not be sent.
 * Subclasses name the protocol outcomes (RFC 7252 §4.2): {@link ExchangeTimeoutException} and
 * {@link ExchangeRejectedException}. The client API translates these into its own exceptions.
 */
public class ExchangeFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ExchangeFailedException(String message) {
        super(message);
    }

    public ExchangeFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
