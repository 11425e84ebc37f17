package io.stagecoach.core.server;

import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.network.CoapEndpointBuilder;
import io.stagecoach.core.network.faults.FaultInjector;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Builds a {@link CoapServer} with several endpoints and the executors of its stages.
 *
 * <pre>{@code
 * CoapServer server = CoapServer.builder()
 *         .udp(new InetSocketAddress(5683))
 *         .epoll(new InetSocketAddress(5783))
 *         .resourceThreads(4, 1000)
 *         .build();
 * }</pre>
 *
 * Endpoints from {@link #udp}/{@link #epoll} are created at {@link #build()} with this builder's
 * {@link #config}, {@link #scheduler} and {@link #protocolExecutor}; an {@link #endpoint} handed in
 * ready-built (in-memory network, custom layers) keeps its own. Without any endpoint the server
 * listens on UDP port 5683 of every interface.
 */
public final class CoapServerBuilder {

    private final List<Supplier<CoapEndpoint>> endpoints = new ArrayList<>();
    private Configuration config;
    private Scheduler scheduler;
    private Executor protocolExecutor;
    private Executor resourceExecutor;
    private ExecutorService ownedExecutor;
    private FaultInjector faults;

    CoapServerBuilder() {
    }

    /** An endpoint on the JDK UDP connector bound to {@code bind} (port 0: a free port). */
    public CoapServerBuilder udp(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(UdpConnector.builder().bindAddress(bind).build()));
        return this;
    }

    /**
     * An endpoint on the Netty connector (native epoll with SO_REUSEPORT on Linux, NIO elsewhere).
     * Netty is an optional dependency: without it on the class path {@link #build()} throws
     * IllegalStateException.
     */
    public CoapServerBuilder epoll(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(NettyConnectors.create(bind)));
        return this;
    }

    /** An endpoint built elsewhere (in-memory network, extra layers); the server takes it over. */
    public CoapServerBuilder endpoint(CoapEndpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        endpoints.add(() -> endpoint);
        return this;
    }

    /** Configuration of the endpoints this builder creates. */
    public CoapServerBuilder config(Configuration config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /** Clock and timer of the endpoints this builder creates (each creates its own otherwise). */
    public CoapServerBuilder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * Runs the protocol stage of the endpoints this builder creates on {@code executor} (owned by
     * the caller) instead of each endpoint's pool of PROTOCOL_THREADS threads.
     */
    public CoapServerBuilder protocolExecutor(Executor executor) {
        this.protocolExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * The default resource executor: set on the root, so every resource without its own runs its
     * handlers there. The caller owns it and shuts it down. Without one, handlers run on the
     * protocol thread.
     */
    public CoapServerBuilder resourceExecutor(Executor executor) {
        this.resourceExecutor = Objects.requireNonNull(executor, "executor");
        this.ownedExecutor = null;
        return this;
    }

    /**
     * Chaos testing (issue 11 "Faults"): the endpoints this builder creates get
     * {@link CoapEndpointBuilder#faults} (RECEIVER_DIES, LAYER_THROWS); every deliverer throws in
     * handlers at the HANDLER_THROWS rate; the default resource executor (inline when there is
     * none) rejects at the EXECUTOR_REJECTS rate. Endpoints passed to {@link #endpoint} keep their
     * own stack and connector. Off unless called.
     */
    public CoapServerBuilder faults(FaultInjector faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
        return this;
    }

    /**
     * As {@link #resourceExecutor} with a bounded pool the server creates and shuts down in
     * {@link CoapServer#destroy()}: {@code threads} threads named {@code stagecoach-resource-server-n}
     * and {@code queueCapacity} waiting requests; beyond that requests are answered 5.03.
     */
    public CoapServerBuilder resourceThreads(int threads, int queueCapacity) {
        ExecutorService pool = BoundedExecutors.fixed("server", threads, queueCapacity);
        this.resourceExecutor = pool;
        this.ownedExecutor = pool;
        return this;
    }

    public CoapServer build() {
        if (endpoints.isEmpty()) {
            udp(new InetSocketAddress(5683));
        }
        return new CoapServer(this);
    }

    List<CoapEndpoint> buildEndpoints() {
        List<CoapEndpoint> out = new ArrayList<>(endpoints.size());
        for (Supplier<CoapEndpoint> s : endpoints) {
            out.add(s.get());
        }
        return out;
    }

    Executor resourceExecutor() {
        if (faults == null) {
            return resourceExecutor;
        }
        return faults.executor(resourceExecutor != null ? resourceExecutor : Runnable::run);
    }

    FaultInjector faults() {
        return faults;
    }

    ExecutorService ownedExecutor() {
        return ownedExecutor;
    }

    private CoapEndpoint endpoint(Connector connector) {
        CoapEndpointBuilder b = CoapEndpoint.builder().connector(connector);
        if (config != null) {
            b.config(config);
        }
        if (scheduler != null) {
            b.scheduler(scheduler);
        }
        if (protocolExecutor != null) {
            b.executor(protocolExecutor);
        }
        if (faults != null) {
            b.faults(faults);
        }
        return b.build();
    }

    /** Keeps Netty classes out of this builder's linkage: they load only when epoll() is used. */
    private static final class NettyConnectors {
        static Connector create(InetSocketAddress bind) {
            try {
                return new io.stagecoach.elements.netty.NettyUdpConnector(
                        UdpConnector.builder().bindAddress(bind).buildConfig());
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("epoll(...) needs Netty (netty-transport-native-epoll) on the class path", e);
            }
        }
    }
}
