package io.stagecoach.core.server;

import io.stagecoach.core.coap.Response;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;

/**
 * Plugs a {@link CoapEndpoint} in as the resource stage's {@link ExchangeResponder}. An adapter
 * rather than {@code CoapEndpoint implements ExchangeResponder} keeps the dependency one-way:
 * the server package knows the network package, never the reverse.
 */
final class EndpointResponder implements ExchangeResponder {

    private final CoapEndpoint endpoint;

    EndpointResponder(CoapEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void respond(Exchange exchange, Response response) {
        endpoint.respond(exchange, response);
    }

    @Override
    public void accept(Exchange exchange) {
        endpoint.accept(exchange);
    }

    @Override
    public void reject(Exchange exchange) {
        endpoint.reject(exchange);
    }

    @Override
    public boolean submit(Runnable task) {
        return endpoint.submit(task);
    }
}
