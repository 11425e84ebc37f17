package io.stagecoach.elements.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocal;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.udp.BindFamily;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UDP connector on Netty. With the native epoll transport it binds {@code nettyChannels}
 * ({@code udp.netty-channels}, one per processor by default) channels to the same port with
 * {@code SO_REUSEPORT}, each served by its own event loop, so the kernel spreads peers over the
 * loops (shard per core); without epoll (non-Linux) it falls back to one NIO channel.
 *
 * <p>System calls are batched on epoll ({@code udp.batch-size}, 64 by default): up to that many
 * datagrams are read with one {@code recvmmsg} into one pooled buffer (Netty's
 * {@code maxDatagramPayloadSize}), each copied once into the shard's array that is lent to the
 * receiver ({@link RawDataReceiver#receiveDatagram}), and the
 * answers the receiver sends while the batch is delivered leave together at the end of the batch
 * with one {@code sendmmsg} (one flush). An answer sent from an event loop goes out through that
 * loop's own channel (same port), so it needs no hand-off, and is copied into one of the loop's
 * reused packets (a ring of {@code udp.batch-size}) when it has no callback; a datagram sent from any other thread
 * goes to the channel chosen by the peer's hash (keeps per-peer order) and Netty hands it to that
 * channel's loop.
 *
 * <p>On epoll the channels send IPv4 datagrams as atomic datagrams ({@code udp.dont-fragment}, on
 * by default): DF set and IP ID 0 (RFC 6864 §4.1), so the kernel takes no ID from its shared table
 * per answer; a datagram longer than the path MTU is then lost instead of being fragmented
 * (RFC 7252 §4.6 asks every message to fit one IP packet).
 *
 * <p>The outbound queue is Netty's, bounded per channel by a count of datagrams not yet written:
 * {@code outboundQueueCapacity} applies to each channel, the thread counts are ignored (the event
 * loops receive and send). Event-loop threads are named {@code stagecoach-netty-udp-*}.
 *
 * <p>Supervision: a {@link RawDataReceiver} that throws loses only the datagram it was given. A
 * RuntimeException is logged; an Error is caught in the inbound handler too, so the event loop
 * (there is no thread to replace) keeps receiving, and is counted in
 * {@link ConnectorCounters#receiverRestarts()} like a replaced receive thread of the JDK connector.
 *
 * <p>Only load this class when Netty is on the class path: it is an optional dependency.
 */
public final class NettyUdpConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(NettyUdpConnector.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);
    /** Linux {@code setsockopt(IPPROTO_IP, IP_MTU_DISCOVER)}; also governs IPv4-mapped traffic of an IPv6 socket. */
    static final IntegerUnixChannelOption IP_MTU_DISCOVER = new IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10);
    /**
     * DF set, the path MTU learned from ICMP ignored: a datagram above the interface MTU fails
     * (EMSGSIZE). Chosen over IP_PMTUDISC_DO (2), which also gives IP ID 0 but obeys learned path
     * MTUs: a spoofed ICMP Fragmentation Needed could then lower a peer's to 552 and make every
     * larger answer to it fail here.
     */
    static final int IP_PMTUDISC_PROBE = 3;

    private final UdpConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final Object lifecycle = new Object();
    /** The shard whose event loop runs on this thread: answers go out through the loop's own channel. */
    private final FastThreadLocal<Shard> shardOfThread = new FastThreadLocal<>();
    private volatile RawDataReceiver receiver = data -> { };
    private volatile Shard[] shards;
    private volatile boolean running;
    private volatile InetSocketAddress boundAddress;
    private volatile boolean batched;
    private boolean destroyed;
    private EventLoopGroup group;
    private TrackingThreadFactory threadFactory;

    private final boolean allowEpoll;
    /** A direct buffer per thread that calls {@link #sendDirect}: the native {@code sendto} reads only direct memory. */
    private final ThreadLocal<ByteBuffer> directOut;

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
        this.directOut = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(config.maxDatagramSize()));
    }

    /** Channels bound while running: {@code nettyChannels} with epoll, 1 with NIO; 0 when stopped. */
    public int channelCount() {
        Shard[] s = shards;
        return running && s != null ? s.length : 0;
    }

    /**
     * Whether reads and writes are batched ({@code recvmmsg}/{@code sendmmsg}) while running: epoll
     * with {@code udp.batch-size} above 1.
     */
    public boolean isBatched() {
        return running && batched;
    }

    /** The value of {@code option} on each bound channel, in binding order (tests: what the kernel holds). */
    <T> List<T> channelOption(ChannelOption<T> option) {
        List<T> values = new ArrayList<>();
        for (Shard s : shards) {
            values.add(s.channel().config().getOption(option));
        }
        return values;
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
            // one byte more than allowed: a datagram that fills its slot was too large (truncated)
            int slot = config.maxDatagramSize() + 1;
            int batch = epoll ? config.batchSize() : 1;
            threadFactory = new TrackingThreadFactory();
            group = epoll ? new EpollEventLoopGroup(loops, threadFactory) : new NioEventLoopGroup(1, threadFactory);
            Bootstrap bootstrap = new Bootstrap().group(group)
                    .channelFactory(channels(epoll, BindFamily.isIpv4(config.bindAddress())))
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    // a batch of slots per read: recvmmsg fills up to `batch` datagrams at once
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(slot * batch).maxMessagesPerRead(Math.max(16, batch)));
            if (batch > 1) {
                bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot);
            }
            if (config.receiveBufferSize() > 0) {
                bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferSize());
            }
            if (config.sendBufferSize() > 0) {
                bootstrap.option(ChannelOption.SO_SNDBUF, config.sendBufferSize());
            }
            if (epoll && loops > 1) {
                bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
            }
            if (epoll && config.dontFragment()) {
                // atomic datagrams (RFC 6864 §4.1): Linux then writes IP ID 0 instead of taking an
                // ID from its shared table for every answer, a measurable share of the send cost
                bootstrap.option(IP_MTU_DISCOVER, IP_PMTUDISC_PROBE);
            }
            List<Channel> bound = new ArrayList<>();
            List<Shard> made = new ArrayList<>();
            try {
                InetSocketAddress address = epoll && loops > 1 ? exclusivePort(config.bindAddress()) : config.bindAddress();
                Channel first = bind(bootstrap, address, made);
                bound.add(first);
                InetSocketAddress local = (InetSocketAddress) first.localAddress();
                for (int i = 1; i < loops; i++) {
                    bound.add(bind(bootstrap, local, made));
                }
                boundAddress = local;
            } catch (IOException | RuntimeException e) {
                bound.forEach(Channel::close);
                shutdownGroup();
                throw e;
            }
            shards = made.toArray(new Shard[0]);
            batched = batch > 1;
            running = true;
            LOG.info("Netty UDP connector bound to {} ({}, {} channel(s), {} datagrams per system call)",
                    boundAddress, epoll ? "epoll" : "nio", loops, batch);
        }
    }

    /**
     * Channels of the bind address's family ({@link BindFamily}): an IPv4 address gets IPv4
     * sockets, whose datagrams skip the kernel's IPv6 UDP path that a dual-stack socket takes for
     * IPv4 peers too; an IPv6 address gets Netty's default, an IPv6 (for {@code [::]} dual-stack) socket.
     */
    private static ChannelFactory<Channel> channels(boolean epoll, boolean ipv4) {
        if (epoll) {
            return ipv4 ? () -> new EpollDatagramChannel(InternetProtocolFamily.IPv4) : EpollDatagramChannel::new;
        }
        return ipv4 ? () -> new NioDatagramChannel(InternetProtocolFamily.IPv4) : NioDatagramChannel::new;
    }

    /**
     * The address to bind the SO_REUSEPORT channels to, after checking that no socket holds it:
     * sockets that all set SO_REUSEPORT (same user) may share a port, so without this a second
     * server on a port in use would bind without an error and take part of the first one's
     * traffic, and a free port chosen by the kernel for port 0 could be one such a group holds.
     * A socket without SO_REUSEPORT binds only where nobody is bound; it is closed at once and
     * the channels take its port.
     */
    private static InetSocketAddress exclusivePort(InetSocketAddress requested) throws IOException {
        try (DatagramChannel probe = BindFamily.open(requested)) {
            probe.bind(requested);
            return new InetSocketAddress(requested.getAddress(), ((InetSocketAddress) probe.getLocalAddress()).getPort());
        }
    }

    private Channel bind(Bootstrap bootstrap, InetSocketAddress address, List<Shard> made) throws IOException {
        Shard[] self = new Shard[1];
        Shard shard = new Shard(config, counters, () -> receiver, () -> shardOfThread.set(self[0]));
        self[0] = shard;
        ChannelFuture f = bootstrap.clone().handler(shard).bind(address).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable cause = f.cause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("bind " + address + " failed", cause);
        }
        made.add(shard);
        return f.channel();
    }

    @Override
    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            for (Shard s : shards) {
                s.channel().close().awaitUninterruptibly();
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
        Shard[] all = shards;
        Shard own = shardOfThread.getIfExists();
        Shard shard = own != null || all == null ? own : all[Math.floorMod(data.context().peer().hashCode(), all.length)];
        Reason refused = refusal(data.size(), shard);
        if (refused != null) {
            data.notifyFailed(new SendFailedException(refused, switch (refused) {
                case OVERSIZE -> data.size() + " bytes > maxDatagramSize " + config.maxDatagramSize();
                case QUEUE_FULL -> "outbound queue full (" + config.outboundQueueCapacity() + ")";
                default -> "connector not running";
            }));
            return;
        }
        if (own != null) {
            shard.writeOnLoop(data);
        } else {
            Channel ch = shard.channel();
            shard.writeFromElsewhere(new DatagramPacket(ch.alloc().directBuffer(data.size()).writeBytes(data.sharedBytes()),
                    data.context().peer()), data);
        }
    }

    /**
     * Writes {@code data} on the calling thread with one {@code sendto} on the socket of the
     * channel {@link #send(RawData)} would hand it to (chosen by the peer's hash), without the
     * hand-off to that channel's event loop: a DTLS handshake thread's flight then costs no
     * wake-up of the loop and no thread switch while the peer waits ({@code docs/benchmarks/dtls.md}).
     * The kernel writes each datagram whole, so this does not disturb the loop's own writes to the
     * socket; datagrams to one peer keep their order among those sent from one thread. On an
     * event loop, on NIO (no epoll), and when the socket's send buffer is full this is
     * {@link #send(RawData)}. The caller must not race {@link #stop()} (a DTLS connector joins its
     * handshake threads before it stops the connector below).
     */
    @Override
    public void sendDirect(RawData data) {
        Shard[] all = shards;
        if (!running || all == null || shardOfThread.getIfExists() != null || data.size() > config.maxDatagramSize()) {
            send(data); // refused and counted there, or written on the loop without a hand-off
            return;
        }
        Shard shard = all[Math.floorMod(data.context().peer().hashCode(), all.length)];
        try {
            if (shard.sendHere(data, directOut.get())) {
                counters.incrementSent();
                data.notifySent();
                return;
            }
        } catch (IOException e) {
            counters.incrementSendErrors();
            notifyFailed(data, e, running);
            return;
        }
        send(data); // the socket's send buffer is full (or not epoll): the loop writes it when it can
    }

    /**
     * On one of this connector's event loops (the protocol stage running inline, answering the
     * datagram it was handed) the bytes are copied into one of the loop's reused packets
     * ({@code udp.batch-size} of them) and leave with the batch's flush, without a copy into a
     * {@link RawData}, a new packet or a pooled buffer; from any other thread they are copied
     * and handed to a loop like {@link #send(RawData)}.
     */
    @Override
    public void send(ByteBuffer datagram, EndpointContext destination) {
        Shard own = shardOfThread.getIfExists();
        if (own == null) {
            Connector.super.send(datagram, destination);
        } else if (refusal(datagram.remaining(), own) == null) {
            own.writeOnLoop(datagram, destination.peer());
        }
    }

    /**
     * Why a datagram of {@code size} bytes for {@code shard} ({@code null} when the connector has
     * none) is not sent, counted; or {@code null} when it may go, its place in the shard's
     * outbound bound taken.
     */
    private Reason refusal(int size, Shard shard) {
        if (size > config.maxDatagramSize()) {
            counters.incrementDroppedOversize();
            return Reason.OVERSIZE;
        }
        if (!running || shard == null) {
            counters.incrementSendErrors();
            return Reason.STOPPED;
        }
        if (shard.queued.incrementAndGet() > config.outboundQueueCapacity()) {
            shard.queued.decrementAndGet();
            counters.incrementDroppedQueueFull();
            return Reason.QUEUE_FULL;
        }
        return null;
    }

    /** Tells {@code data}'s callback that it was not sent: IO_ERROR while running, else STOPPED. */
    static void notifyFailed(RawData data, Throwable cause, boolean running) {
        Reason reason = running ? Reason.IO_ERROR : Reason.STOPPED;
        data.notifyFailed(new SendFailedException(reason, String.valueOf(cause), cause));
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
