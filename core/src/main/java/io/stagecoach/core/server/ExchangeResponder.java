package io.stagecoach.core.server;

import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;

/**
 * The way down from the resource stage to the protocol stage: what a {@link CoapExchange} calls
 * to answer a request. Implemented by the endpoint, which takes each call inside
 * {@link Exchange#execute(Runnable)} (so handlers may call it from any thread) and sends the
 * message down its layer stack.
 *
 * <p>Each method is called at most once per exchange and never after another of them, except
 * {@link #accept(Exchange)}, which may precede {@link #respond(Exchange, Response)}
 * (RFC 7252 §5.2.2, separate response).
 */
interface ExchangeResponder {

    /**
     * Sends {@code response} (token and peer already taken from the request; type and MID left
     * to the message layer, which piggybacks it or sends it separately, RFC 7252 §5.2).
     */
    void respond(Exchange exchange, Response response);

    /** Sends an empty ACK for a CON request now; the response follows separately (RFC 7252 §5.2.2). */
    void accept(Exchange exchange);

    /** Answers the request with a RST (RFC 7252 §4.2, §4.3): this server will not process it. */
    void reject(Exchange exchange);

    /**
     * Runs {@code task} on the protocol stage, never on the calling thread; {@code false} when it
     * cannot be taken now. Default: runs it here (for responders without a stage, in tests).
     */
    default boolean submit(Runnable task) {
        task.run();
        return true;
    }
}
