package io.stagecoach.elements.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringBufferRingConfig;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringFixedBufferRingAllocator;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
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

    /** The buffer group of the loops' provided-buffer rings (one ring per loop, one group). */
    private static final short BUFFER_GROUP = 1;

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

    /**
     * Event loops with, if {@code ringBuffers > 0} and the kernel has provided-buffer rings (Linux
     * 5.19+), a ring of {@code ringBuffers} buffers of {@code bufferSize} bytes each per loop: the
     * connections configured by {@link #useBufferRing} receive into it with one multishot receive
     * each (Linux 6.0+), instead of each holding a buffer of its own and arming a receive per read.
     */
    static EventLoopGroup group(int threads, ThreadFactory factory, int ringBuffers, int bufferSize) {
        if (!bufferRing(ringBuffers)) {
            return new MultiThreadIoEventLoopGroup(threads, factory, IoUringIoHandler.newFactory());
        }
        IoUringBufferRingConfig ring = IoUringBufferRingConfig.builder()
                .bufferGroupId(BUFFER_GROUP)
                .bufferRingSize((short) ringBuffers)
                .batchSize(Math.max(2, ringBuffers / 16)) // Netty wants an even batch
                .allocator(new IoUringFixedBufferRingAllocator(PooledByteBufAllocator.DEFAULT, bufferSize))
                .build();
        return new MultiThreadIoEventLoopGroup(threads, factory,
                IoUringIoHandler.newFactory(new IoUringIoHandlerConfig().setBufferRingConfig(ring)));
    }

    /** Whether a ring of {@code ringBuffers} is wanted and this kernel can provide it. */
    static boolean bufferRing(int ringBuffers) {
        return ringBuffers > 0 && IoUring.isRegisterBufferRingSupported();
    }

    /** Connections of {@code b} receive into their loop's buffer ring (see {@link #group}). */
    static void useBufferRing(ServerBootstrap b) {
        b.childOption(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, BUFFER_GROUP);
    }

    /** As {@link #useBufferRing(ServerBootstrap)} for a client's connections. */
    static void useBufferRing(Bootstrap b) {
        b.option(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, BUFFER_GROUP);
    }

    static Class<? extends ServerChannel> serverChannel() {
        return IoUringServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> channel() {
        return IoUringSocketChannel.class;
    }
}
