package io.stagecoach.core.client;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.ExchangeRejectedException;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One client call on an endpoint: sends the request, completes a future with the first response
 * or the failure, and bounds the wait with a timer on the endpoint's {@link Scheduler} (so tests on
 * a virtual clock need no sleep). When the timer fires the exchange is cancelled on the endpoint
 * (no more retransmissions, store entries freed) with an {@link ExchangeTimeoutException};
 * cancelling the future cancels the exchange too. Failures reach the caller as the client's
 * exceptions ({@link #translate}).
 */
final class ClientCall {

    private ClientCall() {
    }

    static CompletableFuture<CoapResponse> send(CoapEndpoint endpoint, Request request, Duration timeout) {
        CompletableFuture<CoapResponse> future = new CompletableFuture<>();
        Scheduler clock = endpoint.scheduler();
        Exchange exchange = endpoint.sendRequest(request, new Exchange.Listener() {
            @Override
            public void onResponse(Exchange ex, Response response) {
                future.complete(new CoapResponse(response, Duration.ofNanos(clock.nanoTime() - ex.createdNanos())));
            }

            @Override
            public void onFailure(Exchange ex, Throwable cause) {
                future.completeExceptionally(translate(cause));
            }
        });
        if (!future.isDone()) {
            Cancellable timer = clock.schedule(() -> endpoint.cancel(exchange, new ExchangeTimeoutException(
                    "no response to " + request.code() + " " + describe(request) + " within "
                            + timeout.toMillis() + " ms")), timeout);
            future.whenComplete((r, t) -> {
                timer.cancel();
                if (t instanceof CancellationException) {
                    endpoint.cancel(exchange);
                }
            });
        }
        return future;
    }

    /** A ping that completes with {@code true} on the peer's RST and {@code false} on timeout or failure. */
    static CompletableFuture<Boolean> ping(CoapEndpoint endpoint, EndpointContext peer, Duration timeout) {
        CompletableFuture<Boolean> future = new CompletableFuture<>();
        Exchange exchange = endpoint.ping(peer, timeout);
        exchange.whenComplete(() -> future.complete(exchange.failure() == null));
        return future;
    }

    /**
     * Waits for a synchronous call; rethrows its failure as a {@link CoapException} (or the
     * unchecked exception a callback threw). Interruption cancels the call.
     */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CoapException("interrupted while waiting for the response", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new CoapException(cause.toString(), cause);
        }
    }

    /** The client's exception for an endpoint failure: the same outcome, the endpoint's as cause. */
    static CoapException translate(Throwable cause) {
        if (cause instanceof CoapException c) {
            return c;
        }
        if (cause instanceof ExchangeTimeoutException) {
            return new CoapTimeoutException(cause.getMessage(), cause);
        }
        if (cause instanceof ExchangeRejectedException) {
            return new CoapRejectedException(cause.getMessage(), cause);
        }
        if (cause instanceof ExchangeFailedException) {
            return new CoapException(cause.getMessage(), cause);
        }
        return new CoapException(String.valueOf(cause), cause);
    }

    private static String describe(Request request) {
        try {
            return request.uri(false);
        } catch (IllegalStateException e) {
            return String.valueOf(request.peer());
        }
    }
}
