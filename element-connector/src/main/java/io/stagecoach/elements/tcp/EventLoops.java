package io.stagecoach.elements.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport of a {@link NettyTcpConnector}: io_uring when asked for and available
 * (Linux 5.14+ with netty-transport-native-io_uring on the class path), else native epoll when
 * asked for and available (Linux with netty-transport-native-epoll on the class path), else the
 * JDK's NIO; its event-loop groups and channel classes, and their shutdown with the threads joined.
 */
final class EventLoops {

    /** The Netty transports a connector can run on. */
    enum Kind {
        IO_URING("io_uring"), EPOLL("epoll"), NIO("nio");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** As the connector's start line and docs/transports.md name it. */
        String label() {
            return label;
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);

    private final Kind kind;
    private final EventLoopThreads ioThreads;
    private final EventLoopThreads acceptThreads;
    private final EventLoopGroup io;
    private final EventLoopGroup accept;

    /**
     * @param nativeTransport use a native transport if this JVM can (false: NIO)
     * @param ioUring         io_uring rather than epoll as the native transport
     * @param ioLoops         event loops of the connections
     * @param server          also one accepting loop
     */
    EventLoops(boolean nativeTransport, boolean ioUring, int ioLoops, boolean server) {
        this.kind = choose(nativeTransport, ioUring, IoUringTransport::available, EventLoops::epollAvailable);
        this.ioThreads = new EventLoopThreads(server ? "tcp-io" : "tcp-client-io");
        this.acceptThreads = server ? new EventLoopThreads("tcp-accept") : null;
        this.io = group(ioLoops, ioThreads);
        this.accept = server ? group(1, acceptThreads) : null;
    }

    /**
     * The transport to run on: NIO unless a native one is wanted; io_uring if wanted and
     * available, else epoll if available, else NIO. Availability is only asked for what is wanted,
     * so that a transport that is not wanted never loads its classes.
     */
    static Kind choose(boolean nativeTransport, boolean ioUring, BooleanSupplier ioUringAvailable,
            BooleanSupplier epollAvailable) {
        if (!nativeTransport) {
            return Kind.NIO;
        }
        if (ioUring) {
            if (ioUringAvailable.getAsBoolean()) {
                return Kind.IO_URING;
            }
            // DEBUG: io_uring is the default, so this is the normal path wherever it does not load;
            // the start line names the transport the connector ended up on.
            LOG.debug("io_uring not available here; falling back to epoll or NIO");
        }
        return epollAvailable.getAsBoolean() ? Kind.EPOLL : Kind.NIO;
    }

    /**
     * Whether the native epoll transport can be used: its classes are on the class path (they are
     * optional) and its library loads on this platform.
     */
    static boolean epollAvailable() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    private EventLoopGroup group(int threads, ThreadFactory factory) {
        return switch (kind) {
            case IO_URING -> IoUringTransport.group(threads, factory);
            case EPOLL -> new EpollEventLoopGroup(threads, factory);
            case NIO -> new NioEventLoopGroup(threads, factory);
        };
    }

    Kind kind() {
        return kind;
    }

    EventLoopGroup io() {
        return io;
    }

    /** The accepting loop of a server, {@code null} for a client. */
    EventLoopGroup accept() {
        return accept;
    }

    Class<? extends ServerChannel> serverChannel() {
        return switch (kind) {
            case IO_URING -> IoUringTransport.serverChannel();
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    Class<? extends SocketChannel> channel() {
        return switch (kind) {
            case IO_URING -> IoUringTransport.channel();
            case EPOLL -> EpollSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }

    /**
     * Sets level-triggered epoll on the connections of {@code b} (no-op with NIO and io_uring,
     * which have no such mode): edge-triggered, Netty reads a ready socket
     * again until it is empty, one more system call per frame of a request/response exchange;
     * level-triggered stops at the first short read, as NIO does.
     */
    void configure(ServerBootstrap b) {
        if (kind == Kind.EPOLL) {
            b.childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
        }
    }

    /** As {@link #configure(ServerBootstrap)} for a client's connections. */
    void configure(Bootstrap b) {
        if (kind == Kind.EPOLL) {
            b.option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
        }
    }

    /** Stops both groups and joins their threads, each step bounded by {@code timeout}. */
    void shutdown(Duration timeout) {
        for (EventLoopGroup g : new EventLoopGroup[] {accept, io}) {
            if (g != null) {
                g.shutdownGracefully(10, timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        for (EventLoopGroup g : new EventLoopGroup[] {accept, io}) {
            if (g != null && !g.terminationFuture().awaitUninterruptibly(timeout.toMillis())) {
                LOG.warn("event loops did not terminate within {}", timeout);
            }
        }
        for (EventLoopThreads f : new EventLoopThreads[] {acceptThreads, ioThreads}) {
            if (f != null) {
                f.joinAll(timeout);
            }
        }
    }
}
