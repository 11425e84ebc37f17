package io.stagecoach.elements.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UDP connector on Netty. With the native epoll transport it binds {@code nettyChannels}
 * ({@code udp.netty-channels}, one per processor by default) channels to the same port with
 * {@code SO_REUSEPORT}, each served by its own event loop, so the
 * kernel spreads inbound datagrams over the loops; without epoll (non-Linux) it falls back to
 * one NIO channel. Receive buffers come from the pooled allocator and are copied once into the
 * {@link RawData} array.
 *
 * <p>Sending writes to the channel chosen by the peer's hash (keeps per-peer order); the
 * outbound queue is Netty's, bounded here by counting datagrams not yet written:
 * {@code outboundQueueCapacity} applies, the thread counts are ignored (the event loops receive and
 * send).
 * Event-loop threads are named {@code stagecoach-netty-udp-*}.
 *
 * <p>Supervision: a {@link RawDataReceiver} that throws loses only the
 * datagram it was given. A RuntimeException is logged; an Error is caught in the inbound handler
 * too, so the event loop (there is no thread to replace) keeps receiving, and is counted in
 * {@link ConnectorCounters#receiverRestarts()} like a replaced receive thread of the JDK connector.
 *
 * <p>Only load this class when Netty is on the class path: it is an optional dependency.
 */
public final class NettyUdpConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(NettyUdpConnector.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);
    private static final AttributeKey<Boolean> FLUSH_SCHEDULED =
            AttributeKey.valueOf(NettyUdpConnector.class, "flushScheduled");

    private final UdpConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final AtomicInteger pending = new AtomicInteger();
    private final Object lifecycle = new Object();
    private volatile RawDataReceiver receiver = data -> { };
    private volatile Channel[] channels;
    private volatile boolean running;
    private volatile InetSocketAddress boundAddress;
    private boolean destroyed;
    private EventLoopGroup group;
    private TrackingThreadFactory threadFactory;

    private final boolean allowEpoll;
    /** One stack trace per 10 s per kind of receiver failure; all are counted. */
    private final LogThrottle failureLog;
    private final LogThrottle errorLog;

    /** Uses native epoll when available, else NIO. */
    public NettyUdpConnector(UdpConnectorConfig config) {
        this(config, true);
    }

    /**
     * @param allowEpoll {@code false} forces the NIO transport (one channel, one event loop), as
     *                   used on platforms without epoll
     */
    public NettyUdpConnector(UdpConnectorConfig config, boolean allowEpoll) {
        this.config = Objects.requireNonNull(config, "config");
        this.boundAddress = config.bindAddress();
        this.allowEpoll = allowEpoll;
        this.failureLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.errorLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
    }

    /** Channels bound while running: {@code nettyChannels} with epoll, 1 with NIO; 0 when stopped. */
    public int channelCount() {
        Channel[] ch = channels;
        return running && ch != null ? ch.length : 0;
    }

    /** Whether this JVM can use the native epoll transport (else NIO is used). */
    public static boolean isEpollAvailable() {
        return Epoll.isAvailable();
    }

    @Override
    public void start() throws IOException {
        synchronized (lifecycle) {
            if (destroyed) {
                throw new IllegalStateException("connector destroyed");
            }
            if (running) {
                return;
            }
            boolean epoll = allowEpoll && Epoll.isAvailable();
            int loops = epoll ? config.nettyChannels() : 1;
            threadFactory = new TrackingThreadFactory();
            group = epoll ? new EpollEventLoopGroup(loops, threadFactory) : new NioEventLoopGroup(1, threadFactory);
            Bootstrap bootstrap = new Bootstrap().group(group)
                    .channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    // one byte more than allowed: a full buffer means the datagram was too large
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(config.maxDatagramSize() + 1))
                    .handler(new Inbound());
            if (config.receiveBufferSize() > 0) {
                bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferSize());
            }
            if (config.sendBufferSize() > 0) {
                bootstrap.option(ChannelOption.SO_SNDBUF, config.sendBufferSize());
            }
            if (epoll && loops > 1) {
                bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
            }
            List<Channel> bound = new ArrayList<>();
            try {
                Channel first = bind(bootstrap, config.bindAddress());
                bound.add(first);
                InetSocketAddress local = (InetSocketAddress) first.localAddress();
                for (int i = 1; i < loops; i++) {
                    bound.add(bind(bootstrap, local));
                }
                boundAddress = local;
            } catch (IOException | RuntimeException e) {
                bound.forEach(Channel::close);
                shutdownGroup();
                throw e;
            }
            channels = bound.toArray(new Channel[0]);
            running = true;
            LOG.info("Netty UDP connector bound to {} ({}, {} channel(s))", boundAddress,
                    epoll ? "epoll" : "nio", loops);
        }
    }

    private static Channel bind(Bootstrap bootstrap, InetSocketAddress address) throws IOException {
        ChannelFuture f = bootstrap.bind(address).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable cause = f.cause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("bind " + address + " failed", cause);
        }
        return f.channel();
    }

    @Override
    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            for (Channel ch : channels) {
                ch.close().awaitUninterruptibly();
            }
            shutdownGroup();
        }
    }

    private void shutdownGroup() {
        group.shutdownGracefully(10, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!group.terminationFuture().awaitUninterruptibly(SHUTDOWN_TIMEOUT.toMillis())) {
            LOG.warn("event loops did not terminate within {}", SHUTDOWN_TIMEOUT);
        }
        threadFactory.joinAll(SHUTDOWN_TIMEOUT);
    }

    @Override
    public void destroy() {
        synchronized (lifecycle) {
            stop();
            destroyed = true;
            receiver = data -> { };
        }
    }

    @Override
    public void send(RawData data) {
        if (data.size() > config.maxDatagramSize()) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE,
                    data.size() + " bytes > maxDatagramSize " + config.maxDatagramSize()));
            return;
        }
        Channel[] chs = channels;
        if (!running || chs == null) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        if (pending.incrementAndGet() > config.outboundQueueCapacity()) {
            pending.decrementAndGet();
            counters.incrementDroppedQueueFull();
            data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL,
                    "outbound queue full (" + config.outboundQueueCapacity() + ")"));
            return;
        }
        InetSocketAddress peer = data.context().peer();
        Channel ch = chs[Math.floorMod(peer.hashCode(), chs.length)];
        ByteBuf buf = ch.alloc().directBuffer(data.size()).writeBytes(data.buffer());
        ChannelFuture written;
        if (ch.eventLoop().inEventLoop()) {
            // typically an answer sent from the receiver callback: batch the flush so that epoll
            // sends the whole read batch's answers with one sendmmsg call
            written = ch.write(new DatagramPacket(buf, peer));
            scheduleFlush(ch);
        } else {
            written = ch.writeAndFlush(new DatagramPacket(buf, peer));
        }
        written.addListener(f -> {
            pending.decrementAndGet();
            if (f.isSuccess()) {
                counters.incrementSent();
                data.notifySent();
            } else {
                counters.incrementSendErrors();
                Reason reason = running ? Reason.IO_ERROR : Reason.STOPPED;
                data.notifyFailed(new SendFailedException(reason, String.valueOf(f.cause()), f.cause()));
            }
        });
    }

    // called on the channel's event loop only
    private void scheduleFlush(Channel ch) {
        Attribute<Boolean> scheduled = ch.attr(FLUSH_SCHEDULED);
        if (scheduled.get() == null) {
            scheduled.set(Boolean.TRUE);
            ch.eventLoop().execute(() -> {
                scheduled.set(null);
                ch.flush();
            });
        }
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public InetSocketAddress getAddress() {
        return boundAddress;
    }

    @Override
    public String getProtocol() {
        return "UDP";
    }

    @Override
    public ConnectorCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "NettyUdpConnector[" + boundAddress + (running ? "" : ", stopped") + "]";
    }

    @Sharable
    private final class Inbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof DatagramPacket packet)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            long nanos = config.clock().nanoTime();
            try {
                ByteBuf content = packet.content();
                int len = content.readableBytes();
                if (len > config.maxDatagramSize()) {
                    counters.incrementDroppedOversize();
                    return;
                }
                byte[] bytes = new byte[len];
                content.getBytes(content.readerIndex(), bytes);
                counters.incrementReceived();
                try {
                    receiver.receiveData(RawData.inbound(bytes, EndpointContext.of(packet.sender()), nanos));
                } catch (RuntimeException e) {
                    long held = failureLog.tryAcquire();
                    if (held >= 0) {
                        LOG.warn("RawDataReceiver threw on datagram from {} ({} more since the last report)",
                                packet.sender(), held, e);
                    }
                } catch (Error e) {
                    // UdpConnector replaces a receive thread that dies of an Error. An event loop
                    // also sends and may serve other channels, so it must not die: the Error ends
                    // this datagram only (Netty would route it to exceptionCaught anyway, uncounted).
                    // Counted as a restart so that both connectors report the same supervision count.
                    counters.incrementReceiverRestarts();
                    long held = errorLog.tryAcquire();
                    if (held >= 0) {
                        LOG.error("RawDataReceiver threw an Error on datagram from {}; the event loop carries on"
                                + " ({} more since the last report)", packet.sender(), held, e);
                    }
                }
            } finally {
                packet.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("error on {}", ctx.channel(), cause);
        }
    }

    /** Netty's factory (FastThreadLocalThread, fast pooled-buffer caches) that remembers its threads. */
    private static final class TrackingThreadFactory extends DefaultThreadFactory {
        private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

        TrackingThreadFactory() {
            super("stagecoach-netty-udp", true);
        }

        @Override
        protected Thread newThread(Runnable r, String name) {
            Thread t = super.newThread(r, name);
            threads.add(t);
            return t;
        }

        void joinAll(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left > 0 && t != Thread.currentThread()) {
                    try {
                        t.join(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }
}
