package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;

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

    /** Called once when the endpoint stops; release timers and shared state here. */
    default void stop() {
    }
}
