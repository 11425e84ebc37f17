package io.stagecoach.elements.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The frames an event loop writes on a plain-TCP connection during that connection's read
 * batch, on native epoll: gathered in the loop's own direct buffer and sent at the batch's end
 * with one {@code send(2)} straight to the socket. Per answer that saves Netty's write path
 * (a pooled buffer, an outbound-buffer entry, a pass through the pipeline, the pending-bytes
 * accounting) and the flush's pass; the system calls stay one per batch.
 *
 * <p>Order is kept: a frame is only taken while nothing of its connection waits in Netty's
 * outbound buffer; what the socket does not take at once, and what is held when a later frame
 * of the connection must go Netty's way (too large, or Netty's buffer not empty), is written
 * Netty's way before it. A connection holds the buffer only within its read batch, so at most
 * {@value #CAPACITY} bytes per event loop are held, and never across a loop iteration.
 *
 * <p>Only load this class when the native epoll transport is in use (its classes are optional).
 */
final class ReadBatchWriter {

    /** Bytes held per event loop: many small answers, bounded. */
    static final int CAPACITY = 16 * 1024;

    private static final FastThreadLocal<ReadBatchWriter> LOOP = new FastThreadLocal<>() {
        @Override
        protected ReadBatchWriter initialValue() {
            return new ReadBatchWriter();
        }
    };

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(CAPACITY);
    /** The connection whose bytes the buffer holds, {@code null} when empty. */
    private TcpConnection owner;

    private ReadBatchWriter() {
    }

    /** This event loop's writer (call on the loop only). */
    static ReadBatchWriter current() {
        return LOOP.get();
    }

    /**
     * Takes {@code frame} for {@code c}, which is in its read batch on this loop, or refuses it;
     * a refused frame is to be written Netty's way, after what this held for {@code c} (written
     * Netty's way here).
     */
    boolean offer(TcpConnection c, byte[] frame) {
        if (owner != null && owner != c) {
            send(owner); // a batch whose end this did not see: its bytes go first
        }
        if (c.flushPending || frame.length > buffer.remaining() || !nothingWaiting(c.channel)) {
            send(c);
            return false;
        }
        buffer.put(frame);
        owner = c;
        return true;
    }

    /**
     * Sends what is held for {@code c} (the end of its read batch): straight to the socket,
     * the rest Netty's way (then {@code c.flushPending} is set; the caller flushes).
     */
    void send(TcpConnection c) {
        if (owner != c || c == null) {
            return;
        }
        owner = null;
        int n = buffer.position();
        Channel ch = c.channel;
        try {
            if (!ch.isActive()) {
                return; // closed during the batch: a write would fail too
            }
            int written;
            try {
                written = ((Socket) ((UnixChannel) ch).fd()).send(buffer, 0, n);
            } catch (IOException e) {
                written = 0; // Netty's write below meets the same error and closes the channel
            }
            if (written < n) {
                ByteBuf rest = ch.alloc().directBuffer(n - written, n - written);
                buffer.limit(n).position(written);
                rest.writeBytes(buffer);
                ch.write(rest, ch.voidPromise());
                c.flushPending = true;
            }
        } finally {
            buffer.clear();
        }
    }

    /** Drops what is held for {@code c} (it ended). */
    void discard(TcpConnection c) {
        if (owner == c) {
            owner = null;
            buffer.clear();
        }
    }

    private static boolean nothingWaiting(Channel ch) {
        ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        return out != null && out.isEmpty() && out.totalPendingWriteBytes() == 0;
    }
}
