package io.stagecoach.core.client;

/**
 * A client call got a response, but not one it can use: e.g. {@link CoapClient#discover()} answered
 * with an error code or a payload that is not link-format. The response is kept for inspection.
 */
public class CoapClientException extends CoapException {
    private static final long serialVersionUID = 1L;

    private final transient CoapResponse response;

    public CoapClientException(String message, CoapResponse response) {
        super(message);
        this.response = response;
    }

    /** The response that could not be used, or {@code null}. */
    public CoapResponse response() {
        return response;
    }
}
