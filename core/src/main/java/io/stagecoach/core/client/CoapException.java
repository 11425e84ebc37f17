package io.stagecoach.core.client;

/**
 * A {@link CoapClient} call ended without a usable response: the endpoint stopped, the call was
 * cancelled or interrupted, or the request could not be sent. The subclasses name the protocol
 * outcomes: {@link CoapTimeoutException}, {@link CoapRejectedException}, and
 * {@link CoapClientException} for a response the call cannot use. The cause, when there is one,
 * is the endpoint's {@code ExchangeFailedException}.
 */
public class CoapException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CoapException(String message) {
        super(message);
    }

    public CoapException(String message, Throwable cause) {
        super(message, cause);
    }
}
