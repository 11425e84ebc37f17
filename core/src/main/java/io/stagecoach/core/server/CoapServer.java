package io.stagecoach.core.server;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.internal.Overload;
import io.stagecoach.core.server.internal.ObserverBudget;
import io.stagecoach.elements.udp.BindFamily;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CoAP server: one {@link ResourceTree} served on one or more {@link CoapEndpoint}s (Lanter,
 * thesis §5.4). Each endpoint delivers requests to the tree through its own
 * {@link ServerMessageDeliverer}; {@code /.well-known/core} (RFC 6690 §4) is installed at
 * construction.
 *
 * <pre>{@code
 * CoapServer server = new CoapServer(5683)
 *         .add(new CoapResource("A").add(new CoapResource("A1")));
 * server.start();
 * }</pre>
 *
 * <p>Life cycle: {@link #start()} binds every endpoint; {@link #stop()} stops them (open exchanges
 * fail, protocol threads end) and may be followed by {@code start()}; {@link #destroy()} releases
 * every port, thread and owned executor for good. All three are idempotent. Endpoints handed to
 * the builder become the server's: it starts, stops and destroys them. {@link #drain} before
 * {@code stop()} lets a node leave a cluster without cutting anything off (docs/cluster.md).
 */
public final class CoapServer {

    private static final Logger LOG = LoggerFactory.getLogger(CoapServer.class);

    private enum State { NEW, RUNNING, STOPPED, DESTROYED }

    private final ResourceTree tree = new ResourceTree();
    private final List<CoapEndpoint> endpoints;
    private final List<ServerMessageDeliverer> deliverers = new ArrayList<>();
    private final ExecutorService ownedExecutor;
    private State state = State.NEW;
    private ServerDrain drain; // guarded by this; the drain under way or ended, until the next start

    /** A server on UDP port {@code port} of every interface; 0 picks a free port at {@link #start()}. */
    public CoapServer(int port) {
        this(builder().udp(BindFamily.everyInterface(port)));
    }

    /** A server on the default CoAP port 5683 (RFC 7252 §6.1) of every interface. */
    public CoapServer() {
        this(5683);
    }

    CoapServer(CoapServerBuilder b) {
        this.endpoints = List.copyOf(b.buildEndpoints());
        this.ownedExecutor = b.ownedExecutor();
        if (b.resourceExecutor() != null) {
            tree.root().setExecutor(b.resourceExecutor());
        }
        WellKnownCoreResource.install(tree.root());
        // one budget for the whole server: its first endpoint's configuration sets the limits
        ObserverBudget budget = new ObserverBudget(endpoints.get(0).config().get(CoapConfig.OBSERVE_MAX_OBSERVERS),
                endpoints.get(0).config().get(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_SOURCE));
        for (CoapEndpoint endpoint : endpoints) {
            ServerMessageDeliverer deliverer = new ServerMessageDeliverer(tree, new EndpointResponder(endpoint),
                    Overload.maxAgeSeconds(endpoint.config()), b.handlerInterceptors(), b.proxy(),
                    endpoint.config().get(CoapConfig.SERVER_ERROR_DIAGNOSTICS));
            deliverer.observeLimits(endpoint.config().get(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_RESOURCE), budget);
            endpoint.setMessageDeliverer(deliverer);
            deliverers.add(deliverer);
        }
    }

    /** A builder for several endpoints, executors and configuration. */
    public static CoapServerBuilder builder() {
        return new CoapServerBuilder();
    }

    /** Adds resources below the root (allowed while running); returns this server. */
    public CoapServer add(Resource... resources) {
        tree.add(resources);
        return this;
    }

    /** Removes a top-level resource; {@code false} if it was not one. */
    public boolean remove(Resource resource) {
        return tree.root().removeChild(resource);
    }

    /** The root of the tree (requests with an empty Uri-Path reach it: 4.05 by default). */
    public CoapResource root() {
        return tree.root();
    }

    public ResourceTree tree() {
        return tree;
    }

    /**
     * Starts every endpoint. When one cannot bind, those already started are stopped again and
     * the cause is thrown.
     *
     * @throws UncheckedIOException naming the endpoint that could not start
     * @throws IllegalStateException after {@link #destroy()}
     */
    public synchronized CoapServer start() {
        if (state == State.DESTROYED) {
            throw new IllegalStateException("server destroyed; build a new one");
        }
        if (state == State.RUNNING) {
            return this;
        }
        for (CoapEndpoint endpoint : endpoints) {
            try {
                endpoint.start();
            } catch (IOException e) {
                endpoints.forEach(CoapEndpoint::stop);
                throw new UncheckedIOException("cannot start endpoint " + endpoint.address() + ": " + e.getMessage(), e);
            }
        }
        state = State.RUNNING;
        LOG.info("CoAP server started on {}", addresses());
        return this;
    }

    /**
     * Begins a graceful leave, e.g. when the node is asked to stop (SIGTERM) after the load
     * balancer took it out of its map; the server keeps running until {@link #stop()} or
     * {@link #destroy()}:
     * <ol>
     *   <li>a request that would start a new exchange is answered 5.03 Service Unavailable with
     *       Max-Age {@code coap.overload-max-age} (RFC 7252 §5.9.3.4), which a client may retry
     *       after that long, through the balancer, on another node; a request continuing a
     *       block-wise transfer (Block1 or Block2 NUM &gt; 0, RFC 7959 §2.3) is still served,
     *       and so are retransmissions of requests in flight (deduplication, RFC 7252 §4.5);</li>
     *   <li>every observer gets a final notification 5.03 with that Max-Age (no Observe option),
     *       which ends its observation (RFC 7641 §3.2) and tells it when to register again;</li>
     *   <li>handlers still running finish, and answers they promised are sent; separate responses
     *       and those final notifications wait for their ACK or their last retransmission
     *       (RFC 7252 §4.2).</li>
     * </ol>
     * Repeated calls return the same future until the server is stopped.
     *
     * @param timeout how long to wait for what is in flight, on the endpoints' clock
     * @return completes with {@code true} once nothing is in flight, with {@code false} when
     *     {@code timeout} passed first or the server stopped
     * @throws IllegalStateException when the server is not running
     */
    public synchronized CompletableFuture<Boolean> drain(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("drain timeout must not be negative, got " + timeout);
        }
        if (state != State.RUNNING) {
            throw new IllegalStateException("only a running server drains; this one is " + state);
        }
        if (drain == null) {
            List<DrainGate> gates = new ArrayList<>(deliverers.size());
            deliverers.forEach(d -> gates.add(d.drainGate()));
            CoapEndpoint first = endpoints.get(0);
            drain = new ServerDrain(gates, endpoints, first.scheduler(), timeout);
            drain.start(tree.root(), Overload.maxAgeSeconds(first.config()));
        }
        return drain.done();
    }

    /** Whether {@link #drain} was called since the last {@link #start()}. */
    public synchronized boolean isDraining() {
        return drain != null;
    }

    /**
     * Stops every endpoint; {@link #start()} may follow (an endpoint bound to port 0 then binds
     * another free port: read {@link #port()} again). Idempotent.
     */
    public synchronized void stop() {
        if (state != State.RUNNING) {
            return;
        }
        endpoints.forEach(CoapEndpoint::stop);
        if (drain != null) {
            drain.abort(); // completes with false unless it had completed
            drain = null;
            deliverers.forEach(d -> d.drainGate().open());
        }
        state = State.STOPPED;
    }

    /** Stops, then releases every endpoint and the resource executor the server created. Idempotent. */
    public synchronized void destroy() {
        if (state == State.DESTROYED) {
            return;
        }
        stop();
        for (CoapEndpoint endpoint : endpoints) {
            try {
                endpoint.destroy();
            } catch (RuntimeException e) {
                LOG.warn("destroying endpoint {} failed", endpoint.address(), e);
            }
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdownNow();
            try {
                ownedExecutor.awaitTermination(5, TimeUnit.SECONDS);
                // a terminated pool's workers may still be on their way out: destroy() joins them
                BoundedExecutors.joinThreads(ownedExecutor, Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        state = State.DESTROYED;
    }

    public synchronized boolean isRunning() {
        return state == State.RUNNING;
    }

    public List<CoapEndpoint> endpoints() {
        return endpoints;
    }

    /** The addresses the endpoints are bound to (real ports once started). */
    public List<InetSocketAddress> addresses() {
        List<InetSocketAddress> out = new ArrayList<>(endpoints.size());
        for (CoapEndpoint e : endpoints) {
            out.add(e.address());
        }
        return out;
    }

    /** The bound port of the first endpoint (the one a port-0 server picked once started). */
    public int port() {
        return endpoints.get(0).address().getPort();
    }

    /** Delivery counters of each endpoint, in {@link #endpoints()} order. */
    public List<ServerCounters> counters() {
        List<ServerCounters> out = new ArrayList<>(deliverers.size());
        deliverers.forEach(d -> out.add(d.counters()));
        return out;
    }

    @Override
    public String toString() {
        return "CoapServer" + addresses();
    }
}
