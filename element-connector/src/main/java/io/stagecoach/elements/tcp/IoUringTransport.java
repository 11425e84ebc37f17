package io.stagecoach.elements.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.concurrent.ThreadFactory;

/**
 * Netty's io_uring transport for {@link EventLoops}, in a class of its own so that only asking
 * for it loads the io_uring classes (netty-transport-classes-io_uring and its native library are
 * optional dependencies). A loop submits the receives and sends of all its connections to one
 * ring and reaps their completions together, one {@code io_uring_enter} for many operations
 * where epoll makes one {@code recvfrom} and one {@code sendto} system call per request.
 */
final class IoUringTransport {

    private IoUringTransport() {
    }

    /**
     * Whether io_uring can be used: its classes are on the class path and its native library
     * loads and sets up a ring on this kernel (Linux 5.14 or later, not disabled by
     * {@code kernel.io_uring_disabled} or a seccomp filter).
     */
    static boolean available() {
        try {
            return IoUring.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    static EventLoopGroup group(int threads, ThreadFactory factory) {
        return new MultiThreadIoEventLoopGroup(threads, factory, IoUringIoHandler.newFactory());
    }

    static Class<? extends ServerChannel> serverChannel() {
        return IoUringServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> channel() {
        return IoUringSocketChannel.class;
    }
}
