package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import java.util.Set;

/**
 * One conceptual component of CoAP in an endpoint's stack (Lanter, thesis §5.3): six methods, one
 * per direction and message kind, each taking the message and the {@link Exchange} it belongs to.
 *
 * <p>A layer never holds its neighbours. The {@link LayerStack} links the layers and passes each
 * call a {@link LayerContext}; a layer forwards a message by calling the same-named method on the
 * context ({@code ctx.sendRequest(exchange, request)}), and may instead swallow it, change it, or
 * emit other messages. {@link AbstractLayer} forwards everything and is the usual base class.
 *
 * <p>Threading: all calls for one exchange are serialized by the endpoint (see
 * {@link Exchange#execute(Runnable)}); a layer may keep per-exchange state in the exchange without
 * further locking, but must synchronize state it shares across exchanges.
 *
 * <p>Options: a layer that processes options names them in {@link #options()}. The endpoint
 * answers a request carrying a critical option that neither it nor any layer of its stack
 * processes with 4.02 Bad Option before the stack sees it (RFC 7252 §5.4.1), so a layer that
 * claims a critical option (e.g. OSCORE's, RFC 8613) receives requests carrying it.
 *
 * <p>Life cycle: {@link #start}, {@link #stop} and {@link #destroy} follow the endpoint's; the
 * context they get is the layer's own, so a layer can register counters
 * ({@code ctx.services().counters()}) and timers there.
 */
public interface Layer {

    /** A request going down towards the network. */
    void sendRequest(LayerContext ctx, Exchange exchange, Request request);

    /** A response going down towards the network. */
    void sendResponse(LayerContext ctx, Exchange exchange, Response response);

    /** An empty message (ACK, RST, ping) going down towards the network. */
    void sendEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message);

    /** A request coming up from the network. */
    void receiveRequest(LayerContext ctx, Exchange exchange, Request request);

    /** A response coming up from the network. */
    void receiveResponse(LayerContext ctx, Exchange exchange, Response response);

    /** An empty message coming up from the network. */
    void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message);

    /**
     * The option numbers this layer processes. The endpoint unites them with those it processes
     * itself (RFC 7252's Uri-*, Proxy-*, Accept, If-Match, If-None-Match) to decide which
     * critical options are recognized (RFC 7252 §5.4.1). Read once, when the stack is built.
     */
    default Set<OptionNumber> options() {
        return Set.of();
    }

    /**
     * Whether this layer may keep a reference to an exchange, once its call returned, without
     * having stored state in it ({@link Exchange#set}) or registered a completion hook
     * ({@link Exchange#whenComplete}). {@code false} promises that it keeps none: the endpoint
     * may then reuse a completed exchange that carries neither for a later request (see
     * {@link Exchange#release()}). Default {@code true}: a stack with such a layer reuses none.
     */
    default boolean keepsExchanges() {
        return true;
    }

    /** Called when the endpoint starts, before its connector receives anything. */
    default void start(LayerContext ctx) {
    }

    /**
     * Called when the endpoint stops, after its connector stopped: end what the open exchanges
     * would otherwise keep (timers, relations); the endpoint may be started again.
     */
    default void stop(LayerContext ctx) {
    }

    /** Called once when the endpoint is destroyed, after {@link #stop}: release everything. */
    default void destroy(LayerContext ctx) {
    }
}
