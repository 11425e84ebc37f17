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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport of a {@link NettyTcpConnector}: native epoll when asked for and available
 * (Linux with netty-transport-native-epoll on the class path), else the JDK's NIO; its event-loop
 * groups and channel classes, and their shutdown with the threads joined.
 */
final class EventLoops {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);

    private final boolean epoll;
    private final EventLoopThreads ioThreads;
    private final EventLoopThreads acceptThreads;
    private final EventLoopGroup io;
    private final EventLoopGroup accept;

    /**
     * @param nativeTransport use epoll if this JVM can
     * @param ioLoops         event loops of the connections
     * @param server          also one accepting loop
     */
    EventLoops(boolean nativeTransport, int ioLoops, boolean server) {
        this.epoll = nativeTransport && epollAvailable();
        this.ioThreads = new EventLoopThreads(server ? "tcp-io" : "tcp-client-io");
        this.acceptThreads = server ? new EventLoopThreads("tcp-accept") : null;
        this.io = group(ioLoops, ioThreads);
        this.accept = server ? group(1, acceptThreads) : null;
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
        return epoll ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    boolean isEpoll() {
        return epoll;
    }

    EventLoopGroup io() {
        return io;
    }

    /** The accepting loop of a server, {@code null} for a client. */
    EventLoopGroup accept() {
        return accept;
    }

    Class<? extends ServerChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> channel() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /**
     * Sets level-triggered epoll on the connections of {@code b} (no-op with NIO): edge-triggered,
     * Netty reads a ready socket again until it is empty, one more system call per frame of a
     * request/response exchange; level-triggered stops at the first short read, as NIO does.
     */
    void configure(ServerBootstrap b) {
        if (epoll) {
            b.childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
        }
    }

    /** As {@link #configure(ServerBootstrap)} for a client's connections. */
    void configure(Bootstrap b) {
        if (epoll) {
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
