package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;

/** A {@link Layer} that forwards every message unchanged; override what the layer handles. */
public abstract class AbstractLayer implements Layer {

    /** For subclasses. */
    protected AbstractLayer() {
    }

    @Override
    public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
        ctx.sendRequest(exchange, request);
    }

    @Override
    public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
        ctx.sendResponse(exchange, response);
    }

    @Override
    public void sendEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
        ctx.sendEmpty(exchange, message);
    }

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        ctx.receiveRequest(exchange, request);
    }

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        ctx.receiveResponse(exchange, response);
    }

    @Override
    public void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
        ctx.receiveEmpty(exchange, message);
    }
}
