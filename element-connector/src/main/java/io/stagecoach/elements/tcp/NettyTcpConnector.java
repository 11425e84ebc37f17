package io.stagecoach.elements.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.FramingException;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections on Netty for CoAP over TCP, TLS and WebSockets (RFC 8323), as a server (accepts)
 * or a client (connects on the first send to an address and reuses the connection). It knows
 * nothing of CoAP: the endpoint's {@link StreamFramer} cuts TCP and TLS streams into frames, a
 * WebSocket binary message is a frame as it is, and the {@link ConnectionHandler} hears of every
 * connection that opens and closes.
 *
 * <ul>
 *   <li>TLS: the JDK provider, TLS 1.3 and 1.2, ALPN {@code coap} for coaps+tcp; a server with
 *       trusted certificates requires and verifies client certificates.</li>
 *   <li>WebSockets: path {@value TcpConnectorConfig#WEBSOCKET_PATH}, subprotocol {@code coap},
 *       one CoAP message per binary message (fragments are joined up to the maximum message
 *       size; a text message closes with 1003). A server answers other HTTP requests through
 *       its {@link HttpResponder}, or 404.</li>
 *   <li>Limits: connections in total and per source address (a server closes the excess at
 *       once, before any handshake), handshake time, bytes waiting per connection (a send above
 *       it fails with {@link Reason#QUEUE_FULL}).</li>
 *   <li>Threads: {@code workerThreads} event loops {@code stagecoach-tcp-io-N} (and one
 *       {@code stagecoach-tcp-accept-N} for a server); each connection stays on one loop, which
 *       reads it, calls the framer and the receiver inline (no hand-off), and writes it.
 *       Received bytes are read from Netty's pooled buffers and copied once, into the frame;
 *       sent frames are written without a copy.</li>
 * </ul>
 *
 * <p>{@link #stop()} closes every connection (the handler hears of each) and the listening
 * socket, and joins every thread. Only load this class with Netty on the class path
 * (netty-handler; netty-codec-http for WebSockets): they are optional dependencies.
 */
public final class NettyTcpConnector implements StreamConnector {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);
    private static final ConnectionHandler NO_HANDLER = new ConnectionHandler() {
        @Override
        public StreamFramer opened(EndpointContext connection) {
            return null;
        }

        @Override
        public void closed(EndpointContext connection) {
        }
    };

    private final TcpConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<Long, Conn> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, Conn> byPeer = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final Object lifecycle = new Object();
    private final LogThrottle failureLog;
    private volatile RawDataReceiver receiver = data -> { };
    private volatile ConnectionHandler handler = NO_HANDLER;
    private volatile boolean running;
    private volatile InetSocketAddress boundAddress;
    private volatile Bootstrap clientBootstrap;
    private boolean destroyed;
    private EventLoopGroup acceptGroup;
    private EventLoopGroup ioGroup;
    private NamedThreadFactory acceptThreads;
    private NamedThreadFactory ioThreads;
    private Channel serverChannel;
    private SslContext sslContext;

    /** Use {@link #builder()}. */
    NettyTcpConnector(TcpConnectorConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.boundAddress = config.bindAddress();
        this.failureLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
    }

    /** A builder; {@code NettyTcpConnector.builder().transport(Transport.TLS).credentials(c).build()}. */
    public static TcpConnectorConfig.Builder builder() {
        return new TcpConnectorConfig.Builder();
    }

    /** A connector with validated settings. */
    public static NettyTcpConnector create(TcpConnectorConfig config) {
        return new NettyTcpConnector(config);
    }

    public TcpConnectorConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void start() throws IOException {
        synchronized (lifecycle) {
            if (destroyed) {
                throw new IllegalStateException("connector destroyed");
            }
            if (running) {
                return;
            }
            String role = config.isClient() ? "tcp-client-io" : "tcp-io";
            ioThreads = new NamedThreadFactory(role, true);
            ioGroup = new NioEventLoopGroup(config.workerThreads(), ioThreads);
            try {
                sslContext = config.transport().isSecure() ? sslContext() : null;
                if (config.isClient()) {
                    clientBootstrap = new Bootstrap().group(ioGroup).channel(NioSocketChannel.class)
                            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                            .option(ChannelOption.TCP_NODELAY, true)
                            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                                    config.handshakeTimeout().toMillis()))
                            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark());
                    boundAddress = config.bindAddress();
                } else {
                    acceptThreads = new NamedThreadFactory("tcp-accept", true);
                    acceptGroup = new NioEventLoopGroup(1, acceptThreads);
                    ServerBootstrap b = new ServerBootstrap().group(acceptGroup, ioGroup)
                            .channel(NioServerSocketChannel.class)
                            .option(ChannelOption.SO_BACKLOG, 1024)
                            .option(ChannelOption.SO_REUSEADDR, true)
                            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                            .childOption(ChannelOption.TCP_NODELAY, true)
                            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                            .childHandler(new ServerInitializer());
                    ChannelFuture f = b.bind(config.bindAddress()).awaitUninterruptibly();
                    if (!f.isSuccess()) {
                        Throwable cause = f.cause();
                        throw cause instanceof IOException io ? io
                                : new IOException("bind " + config.bindAddress() + " failed: " + cause, cause);
                    }
                    serverChannel = f.channel();
                    boundAddress = (InetSocketAddress) serverChannel.localAddress();
                }
            } catch (IOException | RuntimeException e) {
                shutdownGroups();
                throw e;
            }
            running = true;
            LOG.info("{} {} connector {} {}", config.transport().scheme(), config.isClient() ? "client" : "server",
                    config.isClient() ? "from" : "bound to", boundAddress);
        }
    }

    @Override
    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            if (serverChannel != null) {
                serverChannel.close().awaitUninterruptibly();
                serverChannel = null;
            }
            for (Conn c : List.copyOf(byId.values())) {
                c.channel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT.toMillis());
            }
            shutdownGroups();
            clientBootstrap = null;
            // connections that never reached the maps' cleanup (their loop ended first)
            for (Conn c : List.copyOf(byId.values())) {
                ended(c);
            }
        }
    }

    private void shutdownGroups() {
        for (EventLoopGroup g : new EventLoopGroup[] {acceptGroup, ioGroup}) {
            if (g != null) {
                g.shutdownGracefully(10, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        for (EventLoopGroup g : new EventLoopGroup[] {acceptGroup, ioGroup}) {
            if (g != null && !g.terminationFuture().awaitUninterruptibly(SHUTDOWN_TIMEOUT.toMillis())) {
                LOG.warn("event loops did not terminate within {}", SHUTDOWN_TIMEOUT);
            }
        }
        for (NamedThreadFactory f : new NamedThreadFactory[] {acceptThreads, ioThreads}) {
            if (f != null) {
                f.joinAll(SHUTDOWN_TIMEOUT);
            }
        }
        acceptGroup = null;
        ioGroup = null;
    }

    @Override
    public void destroy() {
        synchronized (lifecycle) {
            stop();
            destroyed = true;
            receiver = data -> { };
            handler = NO_HANDLER;
        }
    }

    // ------------------------------------------------------------------ Connector

    @Override
    public void send(RawData data) {
        if (!running) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        EndpointContext ctx = data.context();
        Long id = ctx.attribute(CONNECTION_ID);
        Conn c = id != null ? byId.get(id) : byPeer.get(ctx.peer());
        if (c == null && id == null && config.isClient()) {
            c = connect(ctx.peer());
        }
        if (c == null) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "no open connection to " + ctx.peer()
                    + (id != null ? " (connection " + id + " closed)" : "")));
            return;
        }
        if (c.opening && c.channel.eventLoop().inEventLoop()) {
            write(c, data); // the greeting sent from ConnectionHandler.opened goes first
            return;
        }
        synchronized (c) {
            if (c.ended) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "connection to " + ctx.peer() + " closed"));
                return;
            }
            if (!c.ready) {
                if (c.queuedBytes + data.size() > config.outboundBuffer()) {
                    counters.incrementDroppedQueueFull();
                    data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL, "connection to " + ctx.peer()
                            + " not ready and " + c.queuedBytes + " bytes waiting"));
                    return;
                }
                c.queued.add(data);
                c.queuedBytes += data.size();
                return;
            }
        }
        write(c, data);
    }

    private void write(Conn c, RawData data) {
        Channel ch = c.channel;
        if (!ch.isWritable() && ch.bytesBeforeWritable() > 0 && ch.isActive()) {
            counters.incrementDroppedQueueFull();
            data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL, "more than " + config.outboundBuffer()
                    + " bytes waiting for " + c.peer));
            return;
        }
        ByteBuf buf = Unpooled.wrappedBuffer(data.sharedBytes()); // no copy: RawData's array is never modified
        Object msg = config.transport().isWebSocket() ? new BinaryWebSocketFrame(buf) : buf;
        ch.writeAndFlush(msg).addListener(f -> {
            if (f.isSuccess()) {
                counters.incrementSent();
                data.notifySent();
            } else {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(running ? Reason.IO_ERROR : Reason.STOPPED,
                        String.valueOf(f.cause()), f.cause()));
            }
        });
    }

    @Override
    public boolean close(EndpointContext connection) {
        Long id = connection.attribute(CONNECTION_ID);
        Conn c = id != null ? byId.get(id) : byPeer.get(connection.peer());
        if (c == null || c.channel == null) {
            return false;
        }
        // after what this thread sent before: writes from the loop are done, others are queued tasks
        c.channel.eventLoop().execute(() -> closeAfterWrites(c, WebSocketCloseStatus.NORMAL_CLOSURE));
        return true;
    }

    private void closeAfterWrites(Conn c, WebSocketCloseStatus status) {
        Channel ch = c.channel;
        if (!ch.isOpen()) {
            return;
        }
        Object last = config.transport().isWebSocket() && c.ready ? new CloseWebSocketFrame(status) : Unpooled.EMPTY_BUFFER;
        ch.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public void setConnectionHandler(ConnectionHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public boolean isMessageTransport() {
        return config.transport().isWebSocket();
    }

    @Override
    public boolean isClient() {
        return config.isClient();
    }

    @Override
    public int connections() {
        return byId.size();
    }

    /** Connections a server accepted since it was built. */
    public long acceptedConnections() {
        return accepted.sum();
    }

    /** Connections a server closed at once for a connection limit. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed because the framer refused their stream. */
    public long abortedConnections() {
        return aborted.sum();
    }

    @Override
    public InetSocketAddress getAddress() {
        return boundAddress;
    }

    /** {@code TCP}, {@code TLS}, {@code WS} or {@code WSS}. */
    @Override
    public String getProtocol() {
        return config.transport().name();
    }

    @Override
    public ConnectorCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "NettyTcpConnector[" + config.transport().scheme() + (config.isClient() ? " client " : " ")
                + boundAddress + (running ? "" : ", stopped") + "]";
    }

    // ------------------------------------------------------------------ connections

    /** One connection; the maps hold it from creation (client: before connecting) to its end. */
    private final class Conn {
        final long id;
        final InetSocketAddress peer;
        final EndpointContext context;
        volatile Channel channel;
        StreamFramer framer; // event loop only
        boolean failed; // event loop only: the framer refused the stream
        volatile boolean opening;
        boolean ready; // guarded by this
        boolean ended; // guarded by this
        boolean openedCalled;
        List<RawData> queued = new ArrayList<>(2); // guarded by this
        int queuedBytes; // guarded by this
        final Consumer<byte[]> frames = this::frame;

        Conn(long id, InetSocketAddress peer) {
            this.id = id;
            this.peer = peer;
            this.context = EndpointContext.of(peer).withAttribute(CONNECTION_ID, id);
        }

        void frame(byte[] frame) {
            counters.incrementReceived();
            try {
                receiver.receiveData(RawData.inbound(frame, context, config.clock().nanoTime()));
            } catch (RuntimeException e) {
                long held = failureLog.tryAcquire();
                if (held >= 0) {
                    LOG.warn("RawDataReceiver threw on a frame from {} ({} more since the last report)", peer, held, e);
                }
            } catch (Error e) {
                counters.incrementReceiverRestarts(); // the event loop carries on, as in NettyUdpConnector
                LOG.error("RawDataReceiver threw an Error on a frame from {}; the event loop carries on", peer, e);
            }
        }

        @Override
        public String toString() {
            return "connection " + id + " " + peer;
        }
    }

    /** Client: a connection to {@code peer}, created and connecting, or the one already there. */
    private Conn connect(InetSocketAddress peer) {
        Bootstrap template = clientBootstrap;
        if (template == null) {
            return null;
        }
        boolean[] created = new boolean[1];
        Conn c = byPeer.computeIfAbsent(peer, p -> {
            created[0] = true;
            return new Conn(nextId.getAndIncrement(), p);
        });
        if (!created[0]) {
            return c;
        }
        byId.put(c.id, c);
        Bootstrap b = template.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                initPipeline(ch, c);
            }
        });
        InetSocketAddress local = config.bindAddress();
        ChannelFuture f = local.getAddress().isAnyLocalAddress() && local.getPort() == 0 ? b.connect(peer)
                : b.connect(peer, local);
        c.channel = f.channel();
        f.addListener(done -> {
            if (!done.isSuccess()) {
                LOG.debug("connecting to {} failed: {}", peer, done.cause().toString());
                ended(c);
            }
        });
        return c;
    }

    /** Server: admits or refuses an accepted connection. */
    private final class ServerInitializer extends ChannelInitializer<SocketChannel> {
        @Override
        protected void initChannel(SocketChannel ch) {
            InetSocketAddress peer = ch.remoteAddress();
            AtomicInteger fromAddress = perAddress.computeIfAbsent(peer.getAddress(), a -> new AtomicInteger());
            int all = total.incrementAndGet();
            int fromPeer = fromAddress.incrementAndGet();
            boolean admitted = running && all <= config.maxConnections() && fromPeer <= config.maxConnectionsPerAddress();
            ch.closeFuture().addListener(f -> {
                total.decrementAndGet();
                if (fromAddress.decrementAndGet() <= 0) {
                    perAddress.remove(peer.getAddress(), fromAddress);
                }
            });
            if (!admitted) {
                refused.increment();
                LOG.debug("refused a connection from {}: connection limit", peer);
                ch.close();
                return;
            }
            accepted.increment();
            Conn c = new Conn(nextId.getAndIncrement(), peer);
            c.channel = ch;
            byId.put(c.id, c);
            byPeer.put(peer, c);
            initPipeline(ch, c);
        }
    }

    private void initPipeline(SocketChannel ch, Conn c) {
        c.channel = ch;
        ChannelPipeline p = ch.pipeline();
        Transport t = config.transport();
        if (t.isSecure()) {
            SSLEngine engine = config.isClient()
                    ? sslContext.newEngine(ch.alloc(), c.peer.getHostString(), c.peer.getPort())
                    : sslContext.newEngine(ch.alloc());
            if (config.isClient() && config.credentials().verifiesHostname()) {
                SSLParameters params = engine.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                engine.setSSLParameters(params);
            }
            SslHandler ssl = new SslHandler(engine);
            ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
            p.addLast("tls", ssl);
        }
        if (t.isWebSocket()) {
            int max = config.maxMessageSize();
            if (config.isClient()) {
                String host = c.peer.getAddress() instanceof java.net.Inet6Address
                        ? "[" + c.peer.getHostString() + "]" : c.peer.getHostString();
                URI uri = URI.create((t.isSecure() ? "wss://" : "ws://") + host + ":" + c.peer.getPort()
                        + TcpConnectorConfig.WEBSOCKET_PATH);
                p.addLast(new HttpClientCodec(), new HttpObjectAggregator(8192));
                p.addLast(new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.newBuilder()
                        .webSocketUri(uri).version(WebSocketVersion.V13).subprotocol(TcpConnectorConfig.PROTOCOL_NAME)
                        .maxFramePayloadLength(max).handshakeTimeoutMillis(config.handshakeTimeout().toMillis())
                        .customHeaders(new DefaultHttpHeaders()).dropPongFrames(true).build()));
            } else {
                p.addLast(new HttpServerCodec(), new HttpObjectAggregator(8192));
                p.addLast(new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                        .websocketPath(TcpConnectorConfig.WEBSOCKET_PATH).subprotocols(TcpConnectorConfig.PROTOCOL_NAME)
                        .maxFramePayloadLength(max).handshakeTimeoutMillis(config.handshakeTimeout().toMillis())
                        .checkStartsWith(false).allowExtensions(false).dropPongFrames(true).build()));
            }
            p.addLast(new WebSocketFrameAggregator(max));
        }
        p.addLast("coap", new ConnectionInbound(c));
    }

    /** The connection can carry data: greet, then write what waited (event loop). */
    private void ready(Conn c) {
        if (c.openedCalled) {
            return;
        }
        c.openedCalled = true;
        c.opening = true;
        try {
            c.framer = handler.opened(c.context);
        } catch (RuntimeException e) {
            LOG.warn("ConnectionHandler.opened threw for {}; closing it", c, e);
            c.opening = false;
            c.channel.close();
            return;
        } finally {
            c.opening = false;
        }
        List<RawData> waiting;
        synchronized (c) {
            c.ready = true;
            waiting = c.queued;
            c.queued = null;
            c.queuedBytes = 0;
        }
        for (RawData d : waiting) {
            write(c, d);
        }
    }

    /** Removes a connection everywhere, fails what waited, tells the handler (once). */
    private void ended(Conn c) {
        List<RawData> waiting;
        synchronized (c) {
            if (c.ended) {
                return;
            }
            c.ended = true;
            waiting = c.queued;
            c.queued = null;
        }
        byId.remove(c.id, c);
        byPeer.remove(c.peer, c);
        if (waiting != null) {
            for (RawData d : waiting) {
                counters.incrementSendErrors();
                d.notifyFailed(new SendFailedException(running ? Reason.IO_ERROR : Reason.STOPPED,
                        "connection to " + c.peer + " closed before it was ready"));
            }
        }
        if (c.openedCalled) {
            try {
                handler.closed(c.context);
            } catch (RuntimeException e) {
                LOG.warn("ConnectionHandler.closed threw for {}", c, e);
            }
        }
    }

    /** The last handler of every pipeline: readiness, frames, the end. */
    private final class ConnectionInbound extends ChannelInboundHandlerAdapter {
        private final Conn c;

        ConnectionInbound(Conn c) {
            this.c = c;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (!config.transport().isSecure() && !config.transport().isWebSocket()) {
                ready(c);
            }
            super.channelActive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent hs) {
                if (!hs.isSuccess()) {
                    LOG.debug("TLS handshake with {} failed: {}", c.peer, String.valueOf(hs.cause()));
                    ctx.close();
                } else if (!config.transport().isWebSocket()) {
                    ready(c);
                }
            } else if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete
                    || evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                ready(c);
            } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT
                    || evt == WebSocketServerProtocolHandler.ServerHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                ctx.close();
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof ByteBuf buf) {
                    readStream(ctx, buf);
                } else if (msg instanceof BinaryWebSocketFrame frame) {
                    if (c.ready) {
                        c.frame(ByteBufUtil.getBytes(frame.content()));
                    }
                } else if (msg instanceof WebSocketFrame) {
                    // text messages carry no CoAP (RFC 8323 §4.2); close, ping and pong are Netty's
                    closeAfterWrites(c, WebSocketCloseStatus.INVALID_MESSAGE_TYPE);
                } else if (msg instanceof FullHttpRequest request) {
                    serveHttp(ctx, request);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void readStream(ChannelHandlerContext ctx, ByteBuf buf) {
            if (c.failed) {
                return;
            }
            if (!c.openedCalled) {
                ready(c);
            }
            StreamFramer framer = c.framer;
            if (framer == null) {
                return;
            }
            try {
                if (buf.nioBufferCount() == 1) {
                    framer.read(buf.nioBuffer(), c.frames);
                } else {
                    for (ByteBuffer b : buf.nioBuffers()) {
                        framer.read(b, c.frames);
                    }
                }
            } catch (FramingException e) {
                c.failed = true;
                aborted.increment();
                LOG.debug("closing {}: {}", c, e.getMessage());
                byte[] last = e.lastWords();
                if (last != null) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(last)).addListener(ChannelFutureListener.CLOSE);
                } else {
                    ctx.close();
                }
            }
        }

        private void serveHttp(ChannelHandlerContext ctx, FullHttpRequest request) {
            HttpResponder responder = config.httpResponder();
            HttpResponder.Reply reply = null;
            if (responder != null) {
                try {
                    reply = responder.respond(request.method().name(), request.uri());
                } catch (RuntimeException e) {
                    LOG.warn("HttpResponder threw on {} {}", request.method(), request.uri(), e);
                    reply = new HttpResponder.Reply(500, "text/plain; charset=utf-8", new byte[0]);
                }
            }
            if (reply == null) {
                reply = new HttpResponder.Reply(404, "text/plain; charset=utf-8",
                        "Not Found\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(reply.status()), Unpooled.wrappedBuffer(reply.body()));
            reply.headers().forEach(response.headers()::set);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
            HttpUtil.setContentLength(response, reply.body().length);
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (!keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ChannelFuture f = ctx.writeAndFlush(response);
            if (!keepAlive) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            ended(c);
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("closing {} after an error: {}", c, cause.toString());
            ctx.close();
        }
    }

    private WriteBufferWaterMark waterMark() {
        int high = config.outboundBuffer();
        return new WriteBufferWaterMark(Math.max(1, high / 2), high);
    }

    private SslContext sslContext() throws IOException {
        TlsCredentials cred = config.credentials();
        SslContextBuilder b;
        if (config.isClient()) {
            b = SslContextBuilder.forClient();
            if (cred.key() != null) {
                b.keyManager(cred.key(), cred.chain().toArray(new java.security.cert.X509Certificate[0]));
            }
            if (cred.trusted() != null) {
                b.trustManager(cred.trusted().toArray(new java.security.cert.X509Certificate[0]));
            }
        } else {
            b = SslContextBuilder.forServer(cred.key(), cred.chain().toArray(new java.security.cert.X509Certificate[0]));
            if (cred.trusted() != null) {
                b.trustManager(cred.trusted().toArray(new java.security.cert.X509Certificate[0]));
                b.clientAuth(ClientAuth.REQUIRE);
            }
        }
        b.sslProvider(SslProvider.JDK).protocols("TLSv1.3", "TLSv1.2");
        if (config.transport() == Transport.TLS) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    TcpConnectorConfig.PROTOCOL_NAME));
        }
        try {
            return b.build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }
}
