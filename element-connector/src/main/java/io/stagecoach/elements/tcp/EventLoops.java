package io.stagecoach.elements.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
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
    private final NamedThreadFactory ioThreads;
    private final NamedThreadFactory acceptThreads;
    private final EventLoopGroup io;
    private final EventLoopGroup accept;

    /**
     * @param nativeTransport use epoll if this JVM can
     * @param ioLoops         event loops of the connections
     * @param server          also one accepting loop
     */
    EventLoops(boolean nativeTransport, int ioLoops, boolean server) {
        this.epoll = nativeTransport && epollAvailable();
        this.ioThreads = new NamedThreadFactory(server ? "tcp-io" : "tcp-client-io", true);
        this.acceptThreads = server ? new NamedThreadFactory("tcp-accept", true) : null;
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
        for (NamedThreadFactory f : new NamedThreadFactory[] {acceptThreads, ioThreads}) {
            if (f != null) {
                f.joinAll(timeout);
            }
        }
    }
}
