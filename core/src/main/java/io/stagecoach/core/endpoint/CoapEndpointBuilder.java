package io.stagecoach.core.endpoint;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.AddressVerifier;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.PeerKey;
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
import io.stagecoach.core.observe.ObservationStore;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.tcp.HttpResponder;
import io.stagecoach.elements.tcp.NettyTcpConnector;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.tcp.TcpConnectorConfig;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.BindFamily;
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
 *         .udp(BindFamily.everyInterface(5683))      // [::]; udp.* settings (udp.connector) from config
 *         .config(CoapConfig.builder().loadFile(Path.of("stagecoach.properties")).build())
 *         .layers(stack -> stack.addAbove(LayerStack.TOKEN, "seal", new SealLayer()))
 *         .build();
 * }</pre>
 *
 * <p>A connector comes either ready-built ({@link #connector}: it keeps its own settings) or is
 * created at {@link #build()} by {@link #udp}, {@link #netty}, {@link #tcp}, {@link #tls},
 * {@link #ws}, {@link #wss}, {@link #dtls} or a client method from this builder's configuration
 * ({@code udp.*}, {@code tcp.*}, {@code dtls.*} keys) and clock, so the endpoint and its
 * connector run on the same time base (a virtual clock in tests). The standard stack is {@link LayerStack}'s; {@link #layers}
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
    ObservationStore observationStore;
    private final List<Consumer<LayerStack.Builder>> layerEdits = new ArrayList<>();
    private HttpResponder httpResponder;

    /**
     * Whether reliable-transport endpoints offer and use BERT (RFC 8323 §6): Block-Wise-Transfer in
     * our CSM when tcp.max-message-size is above 1152.
     */
    static final boolean BERT = true;

    CoapEndpointBuilder() {
    }

    /** A connector built by the caller; it keeps its own settings and clock. */
    public CoapEndpointBuilder connector(Connector connector) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.connectorFactory = null;
        return this;
    }

    /**
     * A UDP connector bound to {@code bind} (port 0: a free port at start), created at
     * {@link #build()} with this builder's {@code udp.*} configuration and clock; which one the
     * configuration's {@code udp.connector} says. Its default, {@link UdpConnectorChoice#AUTO}, is
     * the Netty epoll connector where Netty's native epoll transport loads (Linux with
     * {@code netty-transport-native-epoll} on the class path) and the JDK connector everywhere
     * else, so an application without Netty runs unchanged. The socket takes {@code bind}'s
     * family ({@link BindFamily}): a specific IPv4 address is an IPv4 socket, either wildcard
     * ({@code 0.0.0.0} or {@code [::]}) a dual-stack one.
     */
    public CoapEndpointBuilder udp(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        this.connector = null;
        this.connectorFactory = b -> b.udpConnector(bind, b.config.get(UdpConfig.CONNECTOR));
        return this;
    }

    /**
     * A UDP connector of the given kind bound to {@code bind}, created at {@link #build()} like
     * {@link #udp(InetSocketAddress)} whatever {@code udp.connector} says: {@code JDK} for a
     * portable endpoint or for the JDK connector's receive and send threads, {@code NETTY} as
     * {@link #netty}.
     */
    public CoapEndpointBuilder udp(InetSocketAddress bind, UdpConnectorChoice choice) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(choice, "choice");
        this.connector = null;
        this.connectorFactory = b -> b.udpConnector(bind, choice);
        return this;
    }

    /**
     * A Netty UDP connector (native epoll with {@code udp.netty-channels} SO_REUSEPORT channels on
     * Linux, one NIO channel elsewhere) bound to {@code bind}, created at {@link #build()} like
     * {@link #udp}. Netty is an optional dependency: without it on the class path
     * {@link #build()} throws IllegalStateException.
     */
    public CoapEndpointBuilder netty(InetSocketAddress bind) {
        return udp(bind, UdpConnectorChoice.NETTY);
    }

    /**
     * CoAP over TCP (RFC 8323, {@code coap+tcp}): a server accepting connections on {@code bind}
     * (port 0: a free port at start), created at {@link #build()} with this builder's
     * {@code tcp.*} configuration and clock. Needs Netty's handler on the class path.
     */
    public CoapEndpointBuilder tcp(InetSocketAddress bind) {
        return stream(Transport.TCP, false, bind, null);
    }

    /**
     * CoAP over TLS ({@code coaps+tcp}): a server on {@code bind} with {@code credentials}' identity
     * (and, when they name trusted certificates, required client certificates); TLS 1.3 and 1.2,
     * ALPN {@code coap}.
     */
    public CoapEndpointBuilder tls(InetSocketAddress bind, TlsCredentials credentials) {
        return stream(Transport.TLS, false, bind, Objects.requireNonNull(credentials, "credentials"));
    }

    /**
     * CoAP over WebSockets ({@code coap+ws}): a server on {@code bind}, CoAP at
     * {@code /.well-known/coap}; other HTTP requests go to {@link #httpResponder} (else 404).
     * Needs Netty's codec-http on the class path.
     */
    public CoapEndpointBuilder ws(InetSocketAddress bind) {
        return stream(Transport.WS, false, bind, null);
    }

    /** CoAP over secure WebSockets ({@code coaps+ws}): as {@link #ws} with TLS. */
    public CoapEndpointBuilder wss(InetSocketAddress bind, TlsCredentials credentials) {
        return stream(Transport.WSS, false, bind, Objects.requireNonNull(credentials, "credentials"));
    }

    /**
     * A client of {@code transport}: connects on the first message to a peer and keeps the
     * connection for later ones (RFC 8323 §3); {@code credentials} for the secure transports
     * (e.g. {@link TlsCredentials#trusting}), else {@code null}.
     */
    public CoapEndpointBuilder streamClient(Transport transport, TlsCredentials credentials) {
        return stream(transport, true, new InetSocketAddress(0), credentials);
    }

    /**
     * CoAP over DTLS ({@code coaps}, RFC 7252 §9.1): a DTLS 1.2 server on {@code bind} (port 0: a
     * free port at start), created at {@link #build()} with this builder's {@code dtls.*}
     * configuration and clock. {@code security} then sets what the server proves and whom it accepts
     * on the connector's builder: a {@link io.stagecoach.elements.dtls.PskStore} and/or
     * {@link io.stagecoach.elements.dtls.CertificateCredentials} (X.509 chain or raw public key),
     * and for client certificates a {@link io.stagecoach.elements.dtls.CertificateVerifier} with a
     * {@link DtlsConnectorConfig.ClientAuth}; it may override anything else the builder offers
     * (cipher suites, connection IDs, a simulated transport in tests). Needs BouncyCastle
     * (bcprov, bcutil, bctls 1.84) on the class path.
     *
     * <pre>{@code
     * CoapEndpoint.builder().dtls(new InetSocketAddress(5684),
     *         dtls -> dtls.pskStore(PskStore.of(Map.of("sensor-1", secret)))).build();
     * }</pre>
     *
     * @throws IllegalStateException at {@link #build()} when the credentials do not fit a server
     */
    public CoapEndpointBuilder dtls(InetSocketAddress bind, Consumer<DtlsConnectorConfig.Builder> security) {
        return dtls(DtlsConnectorConfig.Role.SERVER, bind, security);
    }

    /**
     * A DTLS client ({@code coaps}) bound to {@code bind} (port 0: an ephemeral port): a session
     * to a server opens with the first message to it and carries later ones. {@code security} sets
     * what the client proves and trusts: {@link io.stagecoach.elements.dtls.PskCredentials}, or a
     * {@link io.stagecoach.elements.dtls.CertificateVerifier} (e.g. a
     * {@link io.stagecoach.elements.dtls.TrustStoreVerifier}) with optional
     * {@link io.stagecoach.elements.dtls.CertificateCredentials} of its own.
     *
     * @throws IllegalStateException at {@link #build()} when the credentials do not fit a client
     */
    public CoapEndpointBuilder dtlsClient(InetSocketAddress bind, Consumer<DtlsConnectorConfig.Builder> security) {
        return dtls(DtlsConnectorConfig.Role.CLIENT, bind, security);
    }

    private CoapEndpointBuilder dtls(DtlsConnectorConfig.Role role, InetSocketAddress bind,
            Consumer<DtlsConnectorConfig.Builder> security) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(security, "security");
        this.connector = null;
        this.connectorFactory = b -> DtlsConnectors.create(role, b.config, bind, b.scheduler, security);
        return this;
    }

    /** For a {@link #ws}/{@link #wss} server: answers HTTP requests to other paths (static files). */
    public CoapEndpointBuilder httpResponder(HttpResponder responder) {
        this.httpResponder = Objects.requireNonNull(responder, "responder");
        return this;
    }

    private CoapEndpointBuilder stream(Transport transport, boolean client, InetSocketAddress bind,
            TlsCredentials credentials) {
        Objects.requireNonNull(bind, "bind");
        this.connector = null;
        this.connectorFactory = b -> NettyConnectors.createStream(TcpConnectorConfig.builder().apply(b.config).transport(transport).client(client).bindAddress(bind)
                .credentials(credentials).httpResponder(b.httpResponder).clock(b.scheduler).buildConfig());
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

    /**
     * Keeps the observations this endpoint's clients establish in {@code store} and matches
     * notifications no exchange of its own waits for through it, so that any node of a cluster
     * hands them to its {@link io.stagecoach.core.observe.NotificationListener}s, and a restarted
     * node restores its observations (RFC 7641 §3; docs/cluster.md). The endpoint does not close
     * the store.
     */
    public CoapEndpointBuilder observationStore(ObservationStore store) {
        this.observationStore = Objects.requireNonNull(store, "store");
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
     * @throws IllegalStateException without a connector ({@link #connector}, {@link #udp},
     *     {@link #netty}, {@link #tcp}, {@link #dtls}...), when a Netty connector is asked for
     *     without Netty or a DTLS one without BouncyCastle on the class path, or when the DTLS
     *     credentials do not fit the role
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

    /**
     * The standard stack, assembled in one place, then the caller's edits. A reliable transport
     * (RFC 8323) has no reliability layer: no types, MIDs, ACKs or retransmissions.
     */
    LayerStack.Builder layers(ExchangeStore store, PeerStateMap<PeerKey, PeerCongestionState> congestion,
            AddressVerifier verifier, ReliableTransport reliable) {
        boolean reliableTransport = reliable != null;
        TokenGenerator tokens = new TokenGenerator(config.get(CoapConfig.TOKEN_LENGTH),
                random != null ? random : new SecureRandom());
        LayerStack.Builder b = LayerStack.builder()
                .addBottom(LayerStack.CLEANUP, new ExchangeCleanupLayer())
                .addBottom(LayerStack.OBSERVE, new ObserveLayer(config, store, reliableTransport))
                .addBottom(LayerStack.BLOCKWISE, reliableTransport
                        ? new BlockwiseLayer(config, store, reliable::bertBlocks) : new BlockwiseLayer(config, store))
                .addBottom(LayerStack.ECHO, new EchoLayer(verifier))
                .addBottom(LayerStack.TOKEN, new TokenLayer(tokens, store));
        if (!reliableTransport) {
            b.addBottom(LayerStack.RELIABILITY, new ReliabilityLayer(config, congestion));
        }
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

    private Connector udpConnector(InetSocketAddress bind, UdpConnectorChoice choice) {
        UdpConnectorConfig.Builder b = udpConfig(bind);
        return switch (choice) {
            case JDK -> b.build();
            case NETTY -> NettyConnectors.create(b.buildConfig());
            case AUTO -> NettyConnectors.EPOLL ? NettyConnectors.create(b.buildConfig()) : b.build();
        };
    }

    /**
     * Whether {@link UdpConnectorChoice#AUTO} picks the Netty epoll connector in this JVM: Netty's
     * native epoll transport is on the class path and loads (Linux).
     */
    public static boolean autoUsesNetty() {
        return NettyConnectors.EPOLL;
    }

    /** Keeps BouncyCastle out of this builder's linkage: it loads only when dtls() is used. */
    private static final class DtlsConnectors {
        static Connector create(DtlsConnectorConfig.Role role, Configuration config, InetSocketAddress bind,
                Scheduler scheduler, Consumer<DtlsConnectorConfig.Builder> security) {
            // dtls.* first, then the endpoint's address and clock (the sweep runs on the endpoint's
            // timer: no thread of its own), then the caller's credentials and overrides
            DtlsConnectorConfig.Builder b = DtlsConnectorConfig.builder(role).apply(config).bindAddress(bind)
                    .scheduler(scheduler);
            security.accept(b);
            try {
                return b.build();
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("coaps (DTLS) needs BouncyCastle (bcprov-jdk18on, bcutil-jdk18on,"
                        + " bctls-jdk18on) on the class path", e);
            }
        }
    }

    /** Keeps Netty classes out of this builder's linkage: they load only when Netty is asked for. */
    private static final class NettyConnectors {
        /** Netty's epoll transport loads; a missing Netty or a non-Linux host leaves it false. */
        static final boolean EPOLL = epollLoads();

        private static boolean epollLoads() {
            try {
                return NettyUdpConnector.isEpollAvailable();
            } catch (LinkageError e) {
                return false;
            }
        }

        static Connector create(UdpConnectorConfig config) {
            try {
                return new NettyUdpConnector(config);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("netty(...) needs Netty (netty-transport-native-epoll) on the class path", e);
            }
        }

        static Connector createStream(TcpConnectorConfig config) {
            try {
                return NettyTcpConnector.create(config);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException(config.transport().scheme()
                        + " needs Netty (netty-handler, and netty-codec-http for WebSockets) on the class path", e);
            }
        }
    }
}
