package io.stagecoach.core.endpoint;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.AddressVerifier;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.TokenGenerator;
import io.stagecoach.core.network.internal.cc.PeerCongestionState;
import io.stagecoach.core.network.internal.cc.PeerStateMap;
import io.stagecoach.core.network.internal.layers.BlockwiseLayer;
import io.stagecoach.core.network.internal.layers.EchoLayer;
import io.stagecoach.core.network.internal.layers.ExchangeCleanupLayer;
import io.stagecoach.core.network.internal.layers.ObserveLayer;
import io.stagecoach.core.network.internal.layers.ReliabilityLayer;
import io.stagecoach.core.network.internal.layers.TokenLayer;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.UdpConnector;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * Builds a {@link CoapEndpoint}: its connector, configuration, clock, protocol executor,
 * interceptors and layers.
 *
 * <pre>{@code
 * CoapEndpoint endpoint = CoapEndpoint.builder()
 *         .udp(new InetSocketAddress(5683))          // JDK UDP, udp.* settings from config
 *         .config(CoapConfig.builder().loadFile(Path.of("stagecoach.properties")).build())
 *         .layers(stack -> stack.addAbove(LayerStack.TOKEN, "seal", new SealLayer()))
 *         .build();
 * }</pre>
 *
 * <p>A connector comes either ready-built ({@link #connector}: it keeps its own settings) or is
 * created at {@link #build()} by {@link #udp} or {@link #netty} from this builder's
 * configuration ({@code udp.*} keys) and clock, so the endpoint and its connector run on the same
 * time base (a virtual clock in tests). The standard stack is {@link LayerStack}'s; {@link #layers}
 * edits it.
 */
public final class CoapEndpointBuilder {

    private Connector connector;
    private Function<CoapEndpointBuilder, Connector> connectorFactory;
    private final List<UnaryOperator<Connector>> connectorWrappers = new ArrayList<>();
    Configuration config = CoapConfig.defaults();
    Scheduler scheduler;
    AutoCloseable ownedScheduler;
    Executor executor;
    RandomGenerator random;
    final List<MessageInterceptor> interceptors = new ArrayList<>();
    private final List<Consumer<LayerStack.Builder>> layerEdits = new ArrayList<>();

    CoapEndpointBuilder() {
    }

    /** A connector built by the caller; it keeps its own settings and clock. */
    public CoapEndpointBuilder connector(Connector connector) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.connectorFactory = null;
        return this;
    }

    /**
     * A JDK UDP connector bound to {@code bind} (port 0: a free port at start), created at
     * {@link #build()} with this builder's {@code udp.*} configuration and clock.
     */
    public CoapEndpointBuilder udp(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        this.connector = null;
        this.connectorFactory = b -> b.udpConfig(bind).build();
        return this;
    }

    /**
     * A Netty UDP connector (native epoll with {@code udp.netty-channels} SO_REUSEPORT channels on
     * Linux, one NIO channel elsewhere) bound to {@code bind}, created at {@link #build()} like
     * {@link #udp}. Netty is an optional dependency: without it on the class path
     * {@link #build()} throws IllegalStateException.
     */
    public CoapEndpointBuilder netty(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        this.connector = null;
        this.connectorFactory = b -> NettyConnectors.create(b.udpConfig(bind).buildConfig());
        return this;
    }

    /**
     * Wraps the connector when the endpoint is built, e.g. to trace, capture or impair datagrams;
     * wrappers apply in the order given, the last outermost.
     */
    public CoapEndpointBuilder wrapConnector(UnaryOperator<Connector> wrapper) {
        connectorWrappers.add(Objects.requireNonNull(wrapper, "wrapper"));
        return this;
    }

    /** Configuration; defaults to {@link CoapConfig#defaults()}. */
    public CoapEndpointBuilder config(Configuration config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * The clock and timer (a {@code VirtualClock} in tests); connectors created by {@link #udp}
     * or {@link #netty} stamp datagrams with it. Without one the endpoint creates a real-time
     * scheduler and closes it in {@link CoapEndpoint#destroy()}.
     */
    public CoapEndpointBuilder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * Runs the protocol stage on an executor the application owns (and shuts down) instead of a
     * pool of PROTOCOL_THREADS threads; {@code Runnable::run} runs it on the receive thread.
     */
    public CoapEndpointBuilder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Randomness for initial timeouts, MIDs and tokens; seed it for deterministic tests. Without
     * one, timeouts use {@code ThreadLocalRandom} and MIDs/tokens a {@link SecureRandom}. A given
     * generator must be used from one thread at a time (inline protocol stage).
     */
    public CoapEndpointBuilder random(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /** Adds an interceptor that sees every message sent and received. */
    public CoapEndpointBuilder interceptor(MessageInterceptor interceptor) {
        interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return this;
    }

    /**
     * Edits the layer stack once the standard layers are in place; edits apply in the order
     * given. Example: {@code layers(s -> s.addAbove(LayerStack.TOKEN, "seal", new SealLayer()))}.
     */
    public CoapEndpointBuilder layers(Consumer<LayerStack.Builder> edit) {
        layerEdits.add(Objects.requireNonNull(edit, "edit"));
        return this;
    }

    /**
     * @throws IllegalStateException without a connector ({@link #connector}, {@link #udp} or
     *     {@link #netty}), or when {@link #netty} is used without Netty on the class path
     */
    public CoapEndpoint build() {
        if (connector == null && connectorFactory == null) {
            throw new IllegalStateException("an endpoint needs a connector: connector(..), udp(..) or netty(..)");
        }
        if (scheduler == null) {
            RealTimeScheduler timer = new RealTimeScheduler();
            scheduler = timer;
            ownedScheduler = timer;
        }
        try {
            return new CoapEndpoint(this);
        } catch (RuntimeException | Error e) {
            closeOwnedScheduler();
            throw e;
        }
    }

    /** The connector, created if this builder creates it, wrapped by every wrapper. */
    Connector connector() {
        Connector c = connector != null ? connector : connectorFactory.apply(this);
        for (UnaryOperator<Connector> wrapper : connectorWrappers) {
            c = Objects.requireNonNull(wrapper.apply(c), "a connector wrapper returned null");
        }
        return c;
    }

    /** The standard stack, assembled in one place, then the caller's edits. */
    LayerStack.Builder layers(ExchangeStore store, PeerStateMap<InetSocketAddress, PeerCongestionState> congestion,
            AddressVerifier verifier) {
        TokenGenerator tokens = new TokenGenerator(config.get(CoapConfig.TOKEN_LENGTH),
                random != null ? random : new SecureRandom());
        LayerStack.Builder b = LayerStack.builder()
                .addBottom(LayerStack.CLEANUP, new ExchangeCleanupLayer())
                .addBottom(LayerStack.OBSERVE, new ObserveLayer(config, store))
                .addBottom(LayerStack.BLOCKWISE, new BlockwiseLayer(config, store))
                .addBottom(LayerStack.ECHO, new EchoLayer(verifier))
                .addBottom(LayerStack.TOKEN, new TokenLayer(tokens, store))
                .addBottom(LayerStack.RELIABILITY, new ReliabilityLayer(config, congestion));
        layerEdits.forEach(edit -> edit.accept(b));
        return b;
    }

    void closeOwnedScheduler() {
        if (ownedScheduler != null) {
            try {
                ownedScheduler.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the endpoint's timer failed", e);
            }
        }
    }

    private UdpConnectorConfig.Builder udpConfig(InetSocketAddress bind) {
        return UdpConnector.builder().apply(config).bindAddress(bind).clock(scheduler);
    }

    /** Keeps Netty classes out of this builder's linkage: they load only when netty() is used. */
    private static final class NettyConnectors {
        static Connector create(UdpConnectorConfig config) {
            try {
                return new NettyUdpConnector(config);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("netty(...) needs Netty (netty-transport-native-epoll) on the class path", e);
            }
        }
    }
}
