package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One graceful drain of a {@link CoapServer} (see {@link CoapServer#drain}): closes the gates of
 * its resource stages, sends every observer its final 5.03 with Max-Age, then checks every
 * {@value #POLL_MILLIS} ms on the endpoints' clock whether anything is still in flight, and
 * completes {@link #done()} with {@code true} once nothing is, or with {@code false} at the
 * deadline or when the server stops first.
 *
 * <p>In flight: handler runs not finished, answers a handler left for later, and exchanges the
 * endpoints still hold for a peer (a CON separate response or a final notification waiting for
 * its ACK, RFC 7252 §4.2).
 */
final class ServerDrain {

    private static final Logger LOG = LoggerFactory.getLogger(ServerDrain.class);

    static final long POLL_MILLIS = 10;

    private final List<DrainGate> gates;
    private final List<CoapEndpoint> endpoints;
    private final Scheduler clock;
    private final long deadline;
    private final CompletableFuture<Boolean> done = new CompletableFuture<>();
    private Cancellable poll; // guarded by this

    ServerDrain(List<DrainGate> gates, List<CoapEndpoint> endpoints, Scheduler clock, Duration timeout) {
        this.gates = List.copyOf(gates);
        this.endpoints = List.copyOf(endpoints);
        this.clock = clock;
        this.deadline = clock.nanoTime() + timeout.toNanos();
    }

    /**
     * Closes the gates, ends every observation of the tree under {@code root} with a 5.03 carrying
     * Max-Age {@code maxAgeSeconds} (RFC 7641 §3.2: a non-2.xx notification ends it; RFC 7252
     * §5.9.3.4: Max-Age says when to come back), and starts watching.
     */
    void start(CoapResource root, long maxAgeSeconds) {
        gates.forEach(DrainGate::close);
        int observers = endObservations(root, maxAgeSeconds);
        LOG.info("draining: new requests are answered 5.03 (Max-Age {} s); {} observers told 5.03", maxAgeSeconds,
                observers);
        synchronized (this) {
            if (!done.isDone()) {
                poll = clock.scheduleAtFixedRate(this::check, Duration.ZERO, Duration.ofMillis(POLL_MILLIS));
            }
        }
    }

    /** Completes with {@code true} when everything in flight finished, {@code false} otherwise. */
    CompletableFuture<Boolean> done() {
        return done;
    }

    /** The server stopped before the drain ended: what was in flight is cut off. */
    void abort() {
        finish(false);
    }

    /** Things still in flight (0 when the drain is complete). */
    int inFlight() {
        int n = 0;
        for (DrainGate g : gates) {
            n += g.inFlight();
        }
        for (CoapEndpoint e : endpoints) {
            n += e.openExchanges(Exchange.Origin.REMOTE);
        }
        return n;
    }

    private void check() {
        int left = inFlight();
        if (left == 0) {
            LOG.info("drained: nothing in flight");
            finish(true);
        } else if (clock.nanoTime() - deadline >= 0) {
            LOG.warn("drain deadline passed with {} exchanges in flight", left);
            finish(false);
        }
    }

    private void finish(boolean complete) {
        synchronized (this) {
            if (poll != null) {
                poll.cancel();
                poll = null;
            }
        }
        done.complete(complete);
    }

    private static int endObservations(Resource resource, long maxAgeSeconds) {
        int n = 0;
        if (resource instanceof CoapResource c) {
            n += c.observers().clearAndNotify(Code.SERVICE_UNAVAILABLE, maxAgeSeconds);
        }
        for (Resource child : resource.children()) {
            n += endObservations(child, maxAgeSeconds);
        }
        return n;
    }
}
