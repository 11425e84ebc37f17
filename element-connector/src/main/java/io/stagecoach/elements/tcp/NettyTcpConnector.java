package io.stagecoach.elements.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.util.concurrent.FastThreadLocal;
import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
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
 *       sent frames are copied once, into a pooled direct buffer (TLS: encrypted from the frame's
 *       array). Answers written during their connection's read batch are flushed once at the
 *       batch's end; a frame sent without a callback is written without a promise.</li>
 * </ul>
 *
 * <p>{@link #stop()} closes every connection (the handler hears of each) and the listening
 * socket, and joins every thread. Only load this class with Netty on the class path
 * (netty-handler; netty-codec-http for WebSockets): they are optional dependencies.
 */
public final class NettyTcpConnector implements StreamConnector {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The connection whose read batch this event loop is running. An answer sent while its
     * request is processed names that connection's own context: found by identity, without the
     * registry's lookup by id (a tenth of the I/O thread's Java time with 1000 connections).
     */
    private static final FastThreadLocal<TcpConnection> READING = new FastThreadLocal<>();
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
    private final ConnectionRegistry registry = new ConnectionRegistry();
    private final ConnectionOutbound outbound;
    private final Object lifecycle = new Object();
    private final LogThrottle failureLog;
    private volatile RawDataReceiver receiver = data -> { };
    private volatile ConnectionHandler handler = NO_HANDLER;
    private volatile boolean running;
    private volatile InetSocketAddress boundAddress;
    private volatile Bootstrap clientBootstrap;
    private volatile TlsSetup tls;
    private boolean destroyed;
    private EventLoops loops;
    private Channel serverChannel;

    /** Use {@link #builder()}. */
    NettyTcpConnector(TcpConnectorConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.boundAddress = config.bindAddress();
        this.failureLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.outbound = new ConnectionOutbound(this, config, counters);
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

    /** The Netty transport this connector runs on while started, else {@code null}. */
    EventLoops.Kind loopKind() {
        synchronized (lifecycle) {
            return loops == null ? null : loops.kind();
        }
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
            loops = new EventLoops(config.nativeTransport(), config.ioUring(), config.workerThreads(), !config.isClient());
            try {
                tls = config.transport().isSecure() ? TlsSetup.of(config) : null;
                if (config.isClient()) {
                    clientBootstrap = new Bootstrap().group(loops.io()).channel(loops.channel())
                            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                            .option(ChannelOption.TCP_NODELAY, true)
                            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                                    config.handshakeTimeout().toMillis()))
                            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark());
                    loops.configure(clientBootstrap);
                    boundAddress = config.bindAddress();
                } else {
                    ServerBootstrap b = new ServerBootstrap().group(loops.accept(), loops.io())
                            .channel(loops.serverChannel())
                            .option(ChannelOption.SO_BACKLOG, 1024)
                            .option(ChannelOption.SO_REUSEADDR, true)
                            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                            .childOption(ChannelOption.TCP_NODELAY, true)
                            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                            .childHandler(ConnectionInitializer.server(this, registry, tls));
                    loops.configure(b);
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
                shutdownLoops();
                throw e;
            }
            running = true;
            LOG.info("{} {} connector {} {} ({})", config.transport().scheme(), config.isClient() ? "client" : "server",
                    config.isClient() ? "from" : "bound to", boundAddress, loops.kind().label());
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
            for (TcpConnection c : List.copyOf(registry.all())) {
                c.channel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT.toMillis());
            }
            shutdownLoops();
            clientBootstrap = null;
            // connections that never reached the registry's cleanup (their loop ended first)
            for (TcpConnection c : List.copyOf(registry.all())) {
                ended(c);
            }
        }
    }

    private void shutdownLoops() {
        if (loops != null) {
            loops.shutdown(SHUTDOWN_TIMEOUT);
            loops = null;
        }
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

    boolean isRunning() {
        return running;
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
        TcpConnection c = READING.get();
        if (c == null || c.context != ctx) {
            c = registry.find(ctx);
            if (c == null) {
                Long id = ctx.attribute(CONNECTION_ID);
                if (id == null && config.isClient()) {
                    c = connect(ctx.peer());
                }
                if (c == null) {
                    counters.incrementSendErrors();
                    data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "no open connection to " + ctx.peer()
                            + (id != null ? " (connection " + id + " closed)" : "")));
                    return;
                }
            }
        }
        if (c.ready || c.opening && c.channel.eventLoop().inEventLoop()) {
            // ready: no lock per frame (a closed channel fails the write); opening: the greeting
            // sent from ConnectionHandler.opened goes first
            outbound.write(c, data);
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
        outbound.write(c, data);
    }

    @Override
    public boolean close(EndpointContext connection) {
        TcpConnection c = registry.find(connection);
        if (c == null || c.channel == null) {
            return false;
        }
        // after what this thread sent before: writes from the loop are done, others are queued tasks
        c.channel.eventLoop().execute(() -> closeAfterWrites(c, WebSocketCloseStatus.NORMAL_CLOSURE));
        return true;
    }

    void closeAfterWrites(TcpConnection c, WebSocketCloseStatus status) {
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
        return registry.size();
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

    /** A new connection with {@code peer}, its frames going to the receiver. */
    TcpConnection newConnection(InetSocketAddress peer) {
        return new TcpConnection(registry.nextId(), peer, this::deliver);
    }

    /** Client: a connection to {@code peer}, created and connecting, or the one already there. */
    private TcpConnection connect(InetSocketAddress peer) {
        Bootstrap template = clientBootstrap;
        if (template == null) {
            return null;
        }
        TcpConnection created = newConnection(peer);
        TcpConnection c = registry.putIfAbsent(created);
        if (c != created) {
            return c;
        }
        Bootstrap b = template.clone().handler(ConnectionInitializer.client(this, tls, c));
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

    /** The connection can carry data: greet, then write what waited (event loop). */
    void ready(TcpConnection c) {
        if (c.openedCalled) {
            return;
        }
        c.openedCalled = true;
        c.opening = true;
        try {
            c.framer = handler.opened(c.context);
            c.attachment = handler.attachment(c.context);
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
            outbound.write(c, d);
        }
    }

    /** Removes a connection everywhere, fails what waited, tells the handler (once). */
    void ended(TcpConnection c) {
        List<RawData> waiting;
        synchronized (c) {
            if (c.ended) {
                return;
            }
            c.ended = true;
            waiting = c.queued;
            c.queued = null;
        }
        registry.remove(c);
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

    /** A whole frame of {@code c} to the receiver, on its event loop; a throwing receiver is logged. */
    private void deliver(TcpConnection c, byte[] frame) {
        counters.incrementReceived();
        try {
            receiver.receiveData(RawData.inbound(frame, c.context, config.clock().nanoTime(), c.attachment));
        } catch (RuntimeException e) {
            long held = failureLog.tryAcquire();
            if (held >= 0) {
                LOG.warn("RawDataReceiver threw on a frame from {} ({} more since the last report)", c.peer, held, e);
            }
        } catch (Error e) {
            counters.incrementReceiverRestarts(); // the event loop carries on, as in NettyUdpConnector
            LOG.error("RawDataReceiver threw an Error on a frame from {}; the event loop carries on", c.peer, e);
        }
    }

    /** {@code c}'s read batch starts on this event loop: its answers find it without a lookup. */
    static void reading(TcpConnection c) {
        READING.set(c);
    }

    /** The read batch of this event loop ended. */
    static void readDone() {
        READING.set(null);
    }

    void accepted() {
        accepted.increment();
    }

    void refused() {
        refused.increment();
    }

    void abortedByFramer() {
        aborted.increment();
    }

    private WriteBufferWaterMark waterMark() {
        int high = config.outboundBuffer();
        return new WriteBufferWaterMark(Math.max(1, high / 2), high);
    }
}
