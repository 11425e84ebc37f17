package io.stagecoach.core.client;

/**
 * Callback of an asynchronous {@link CoapClient} call. Exactly one of the two methods is called,
 * once, on a protocol thread of the client's endpoint: do not block in it (hand long work to an
 * executor), and never call a synchronous {@code CoapClient} method from it.
 */
public interface CoapHandler {

    /** A response arrived (any code: 4.04 is an answer too). */
    void onLoad(CoapResponse response);

    /**
     * No response: {@link CoapTimeoutException} (no answer in time), {@link CoapRejectedException}
     * (the server sent RST), or another {@link CoapException} (endpoint stopped, send failed,
     * cancelled).
     */
    void onError(Throwable error);
}
