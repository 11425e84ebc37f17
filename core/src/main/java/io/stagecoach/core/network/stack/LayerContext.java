package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;

/**
 * A layer's handle on its place in the stack, in the manner of Netty's
 * {@code ChannelHandlerContext}: {@code send*} passes a message to the layer below (the last one
 * hands it to the endpoint's outbox: MID assignment, encoding, connector); {@code receive*} passes
 * it to the layer above (the top one hands it to the upper stage: resource tree or client).
 *
 * <p>One context exists per layer; it is immutable and safe to use from any thread.
 */
public final class LayerContext {

    private final LayerStack stack;
    private final int index;
    private final String name;

    LayerContext(LayerStack stack, int index, String name) {
        this.stack = stack;
        this.index = index;
        this.name = name;
    }

    /** The name the layer was registered under, e.g. {@code "reliability"}. */
    public String name() {
        return name;
    }

    /** Services of the endpoint that owns this stack (clock, configuration, counters). */
    public StackServices services() {
        return stack.services();
    }

    public void sendRequest(Exchange exchange, Request request) {
        stack.sendRequest(index + 1, exchange, request);
    }

    public void sendResponse(Exchange exchange, Response response) {
        stack.sendResponse(index + 1, exchange, response);
    }

    public void sendEmpty(Exchange exchange, EmptyMessage message) {
        stack.sendEmpty(index + 1, exchange, message);
    }

    public void receiveRequest(Exchange exchange, Request request) {
        stack.receiveRequest(index - 1, exchange, request);
    }

    public void receiveResponse(Exchange exchange, Response response) {
        stack.receiveResponse(index - 1, exchange, response);
    }

    public void receiveEmpty(Exchange exchange, EmptyMessage message) {
        stack.receiveEmpty(index - 1, exchange, message);
    }

    @Override
    public String toString() {
        return "LayerContext[" + name + "]";
    }
}
