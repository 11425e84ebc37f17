package io.stagecoach.elements.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Copies small outgoing frames of an event loop one after the other into a pooled direct slab
 * owned by that loop and writes each as a slice of it, instead of a pooled buffer per frame:
 * one pool allocation per slab instead of per frame, and the memory written next is the memory
 * just written (warm in the CPU's cache), where the pool's per-thread cache hands out its
 * oldest free buffer. A slab is freed when its last slice has been written and the loop has
 * moved to the next.
 *
 * <p><b>Bounded.</b> A slice keeps its whole slab alive while it waits to be written, so a
 * connection that does not read could otherwise pin one slab per waiting frame. A frame goes
 * into a slab only when nothing is waiting on its channel: a connection pins at most one slab,
 * {@value #SLAB} bytes (its further frames get their own buffers, counted against its outbound
 * limit as before).
 */
final class LoopWriteSlab {

    /** Bytes per slab: Netty's page, its smallest pool allocation above the small size classes. */
    static final int SLAB = 8 * 1024;
    /** Frames above this get their own buffer. */
    static final int MAX_FRAME = 512;

    private static final FastThreadLocal<LoopWriteSlab> SLABS = new FastThreadLocal<>() {
        @Override
        protected LoopWriteSlab initialValue() {
            return new LoopWriteSlab();
        }

        @Override
        protected void onRemoval(LoopWriteSlab s) {
            s.drop(); // the thread ends: the loop's reference to its current slab
        }
    };

    private ByteBuf slab;

    private LoopWriteSlab() {
    }

    /**
     * {@code bytes} in a direct buffer to write on {@code ch}: a slice of this event loop's slab
     * when called on {@code ch}'s event loop, the frame is small and nothing waits on {@code ch};
     * else a pooled buffer of its own.
     */
    static ByteBuf copy(Channel ch, byte[] bytes) {
        int n = bytes.length;
        if (n <= MAX_FRAME && ch.eventLoop().inEventLoop()) {
            ChannelOutboundBuffer waiting = ch.unsafe().outboundBuffer();
            if (waiting != null && waiting.totalPendingWriteBytes() == 0) {
                return SLABS.get().slice(ch.alloc(), bytes);
            }
        }
        return ch.alloc().directBuffer(n, n).writeBytes(bytes);
    }

    private ByteBuf slice(ByteBufAllocator alloc, byte[] bytes) {
        ByteBuf s = slab;
        if (s == null || s.writableBytes() < bytes.length) {
            if (s != null) {
                s.release(); // freed once its last slice is written
            }
            s = alloc.directBuffer(SLAB, SLAB);
            slab = s;
        }
        int at = s.writerIndex();
        s.writeBytes(bytes);
        return s.retainedSlice(at, bytes.length);
    }

    private void drop() {
        if (slab != null) {
            slab.release();
            slab = null;
        }
    }
}
