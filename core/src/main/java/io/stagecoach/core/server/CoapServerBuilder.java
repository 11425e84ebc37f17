package io.stagecoach.core.server;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.BindFamily;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Builds a {@link CoapServer} with several endpoints and the executors of its stages.
 *
 * <pre>{@code
 * CoapServer server = CoapServer.builder()
 *         .config(CoapConfig.builder().loadFile(Path.of("stagecoach.properties")).build())
 *         .udp(BindFamily.everyInterface(5683))       // [::]: IPv4 and IPv6 peers
 *         .netty(BindFamily.everyInterface(5783))
 *         .layers(stack -> stack.addAbove(LayerStack.TOKEN, "seal", new SealLayer()))
 *         .resourceThreads(4, 1000)
 *         .build();
 * }</pre>
 *
 * Any mix of transports serves the same tree:
 * {@code .udp(a).dtls(b, security).tcp(c).tls(d, credentials).ws(e)}.
 * The endpoints of {@link #udp}, {@link #netty}, {@link #dtls}, {@link #tcp}, {@link #tls},
 * {@link #ws}, {@link #wss} and {@link #connector} are created at
 * {@link #build()} with this builder's {@link #config} (including the {@code udp.*},
 * {@code dtls.*} and {@code tcp.*} settings of the connectors they create), {@link #scheduler} (those
 * connectors' clock too), {@link #protocolExecutor}, {@link #layers}, {@link #interceptor}s and
 * {@link #configureEndpoints} edits. An {@link #endpoint} handed in
 * ready-built keeps its own. Without any endpoint the server listens on UDP port 5683 of every
 * interface.
 */
public final class CoapServerBuilder {

    private final List<Supplier<CoapEndpoint>> endpoints = new ArrayList<>();
    private final List<Consumer<CoapEndpointBuilder>> endpointEdits = new ArrayList<>();
    private final List<HandlerInterceptor> handlerInterceptors = new ArrayList<>();
    private Configuration config = CoapConfig.defaults();
    private Scheduler scheduler;
    private Executor protocolExecutor;
    private Executor resourceExecutor;
    private ExecutorService ownedExecutor;
    private Resource proxy;

    CoapServerBuilder() {
    }

    /**
     * An endpoint on a UDP connector bound to {@code bind} (port 0: a free port), the one
     * {@code udp.connector} names: by default the Netty epoll connector where Netty's native epoll
     * transport loads (Linux), else the JDK connector (see {@link CoapEndpointBuilder#udp}). The
     * socket takes {@code bind}'s family ({@link BindFamily}): a specific IPv4 address serves IPv4
     * only; either wildcard ({@code 0.0.0.0}, which is also {@code new InetSocketAddress(port)}, or
     * {@code [::]}) serves both.
     */
    public CoapServerBuilder udp(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(b -> b.udp(bind)));
        return this;
    }

    /**
     * An endpoint on the UDP connector {@code choice} names bound to {@code bind}, whatever
     * {@code udp.connector} says ({@link UdpConnectorChoice#JDK}: the portable JDK connector).
     */
    public CoapServerBuilder udp(InetSocketAddress bind, UdpConnectorChoice choice) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(choice, "choice");
        endpoints.add(() -> endpoint(b -> b.udp(bind, choice)));
        return this;
    }

    /**
     * An endpoint on the Netty UDP connector: native epoll with {@code udp.netty-channels}
     * SO_REUSEPORT channels on Linux, one NIO channel elsewhere. Netty is an optional dependency:
     * without it on the class path {@link #build()} throws IllegalStateException.
     */
    public CoapServerBuilder netty(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(b -> b.netty(bind)));
        return this;
    }

    /**
     * An endpoint for CoAP over TCP ({@code coap+tcp}, RFC 8323) accepting connections on
     * {@code bind}; the {@code tcp.*} settings apply. Needs Netty's handler on the class path.
     */
    public CoapServerBuilder tcp(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(b -> b.tcp(bind)));
        return this;
    }

    /** An endpoint for CoAP over TLS ({@code coaps+tcp}) on {@code bind} with {@code credentials}. */
    public CoapServerBuilder tls(InetSocketAddress bind, TlsCredentials credentials) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(credentials, "credentials");
        endpoints.add(() -> endpoint(b -> b.tls(bind, credentials)));
        return this;
    }

    /**
     * An endpoint for CoAP over DTLS ({@code coaps}, RFC 7252 §9.1) on {@code bind}; the
     * {@code dtls.*} settings apply, then {@code security} sets the credentials on the connector's
     * builder (see {@link CoapEndpointBuilder#dtls}):
     * {@code .dtls(new InetSocketAddress(5684), dtls -> dtls.pskStore(store))}. Handlers read who
     * authenticated with {@link CoapExchange#principal()}. Needs BouncyCastle on the class path.
     */
    public CoapServerBuilder dtls(InetSocketAddress bind, Consumer<DtlsConnectorConfig.Builder> security) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(security, "security");
        endpoints.add(() -> endpoint(b -> b.dtls(bind, security)));
        return this;
    }

    /**
     * An endpoint for CoAP over WebSockets ({@code coap+ws}) on {@code bind}, at
     * {@code /.well-known/coap}. Needs Netty's codec-http on the class path.
     */
    public CoapServerBuilder ws(InetSocketAddress bind) {
        Objects.requireNonNull(bind, "bind");
        endpoints.add(() -> endpoint(b -> b.ws(bind)));
        return this;
    }

    /** An endpoint for CoAP over secure WebSockets ({@code coaps+ws}) on {@code bind}. */
    public CoapServerBuilder wss(InetSocketAddress bind, TlsCredentials credentials) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(credentials, "credentials");
        endpoints.add(() -> endpoint(b -> b.wss(bind, credentials)));
        return this;
    }

    /**
     * An endpoint on a connector built elsewhere (an in-memory network, a connector of the
     * caller's), created with this builder's settings like those of {@link #udp}; the connector
     * keeps its own settings.
     */
    public CoapServerBuilder connector(Connector connector) {
        Objects.requireNonNull(connector, "connector");
        endpoints.add(() -> endpoint(b -> b.connector(connector)));
        return this;
    }

    /** An endpoint built elsewhere, with all its settings; the server takes it over. */
    public CoapServerBuilder endpoint(CoapEndpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        endpoints.add(() -> endpoint);
        return this;
    }

    /** Configuration of the endpoints (and their connectors) this builder creates; default {@link CoapConfig#defaults()}. */
    public CoapServerBuilder config(Configuration config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * Clock and timer of the endpoints this builder creates and of their connectors (each
     * endpoint creates its own otherwise).
     */
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
     * Edits the layer stack of every endpoint this builder creates (see
     * {@link CoapEndpointBuilder#layers}).
     */
    public CoapServerBuilder layers(Consumer<LayerStack.Builder> edit) {
        Objects.requireNonNull(edit, "edit");
        return configureEndpoints(b -> b.layers(edit));
    }

    /** Adds an interceptor to every endpoint this builder creates: it sees every message sent and received. */
    public CoapServerBuilder interceptor(MessageInterceptor interceptor) {
        Objects.requireNonNull(interceptor, "interceptor");
        return configureEndpoints(b -> b.interceptor(interceptor));
    }

    /**
     * Applies {@code edit} to the builder of every endpoint this builder creates, after its
     * connector, configuration, clock and executor are set: the expert's hook for anything
     * {@link CoapEndpointBuilder} offers (e.g. {@link CoapEndpointBuilder#wrapConnector}).
     */
    public CoapServerBuilder configureEndpoints(Consumer<CoapEndpointBuilder> edit) {
        endpointEdits.add(Objects.requireNonNull(edit, "edit"));
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

    /**
     * The resource that serves requests carrying Proxy-Uri or Proxy-Scheme (RFC 7252 §5.7): a
     * forward proxy of yours. Without one they are answered 5.05 Proxying Not Supported.
     */
    public CoapServerBuilder proxy(Resource proxy) {
        this.proxy = Objects.requireNonNull(proxy, "proxy");
        return this;
    }

    /** Runs {@code interceptor} around every handler of the server (see {@link HandlerInterceptor}). */
    public CoapServerBuilder handlerInterceptor(HandlerInterceptor interceptor) {
        handlerInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return this;
    }

    public CoapServer build() {
        if (endpoints.isEmpty()) {
            udp(BindFamily.everyInterface(5683));
        }
        return new CoapServer(this);
    }

    List<CoapEndpoint> buildEndpoints() {
        List<CoapEndpoint> out = new ArrayList<>(endpoints.size());
        try {
            for (Supplier<CoapEndpoint> s : endpoints) {
                out.add(s.get());
            }
        } catch (RuntimeException | Error e) {
            out.forEach(CoapEndpoint::destroy);
            throw e;
        }
        return out;
    }

    Executor resourceExecutor() {
        return resourceExecutor;
    }

    ExecutorService ownedExecutor() {
        return ownedExecutor;
    }

    Resource proxy() {
        return proxy;
    }

    List<HandlerInterceptor> handlerInterceptors() {
        return List.copyOf(handlerInterceptors);
    }

    private CoapEndpoint endpoint(Consumer<CoapEndpointBuilder> connector) {
        CoapEndpointBuilder b = CoapEndpoint.builder().config(config);
        connector.accept(b);
        if (scheduler != null) {
            b.scheduler(scheduler);
        }
        if (protocolExecutor != null) {
            b.executor(protocolExecutor);
        }
        endpointEdits.forEach(edit -> edit.accept(b));
        return b.build();
    }
}
