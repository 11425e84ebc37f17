package io.stagecoach.elements.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Reads every plain-TCP connection of an event loop into one direct buffer owned by that loop,
 * instead of a pooled buffer per read. With many connections each read carries one small
 * frame: a pooled buffer per read costs its allocation, the recycler, the pool's thread cache
 * and the leak detector's sampling, and touches a buffer that has gone cold since it was freed
 * (the pool's cache is first-in first-out); the loop's own buffer stays in the CPU's cache.
 *
 * <p>Safe only where the buffer's content is consumed before the read returns: Netty hands
 * each read to the pipeline synchronously, before it reads again, and {@link ConnectionInbound}
 * copies what it keeps (the framer) and releases the buffer. It must not be used under a handler
 * that keeps the received buffer (TLS, the WebSocket codecs cumulate it); the connector uses it
 * for plain TCP only. Each read hands out one reference (released by whoever consumes the read),
 * so the buffer is never freed while its loop runs; it is freed when the loop's thread ends.
 */
final class LoopReadBuffer extends DefaultMaxMessagesRecvByteBufAllocator {

    /** Bytes read at most per system call: a few frames of the default maximum message size. */
    static final int CAPACITY = 16 * 1024;

    private static final FastThreadLocal<ByteBuf> BUFFER = new FastThreadLocal<>() {
        @Override
        protected ByteBuf initialValue() {
            // not from an allocator: no pool, no leak tracking (it lives as long as its thread)
            return new UnpooledUnsafeDirectByteBuf(UnpooledByteBufAllocator.DEFAULT, CAPACITY, CAPACITY);
        }

        @Override
        protected void onRemoval(ByteBuf buf) {
            buf.release(); // the thread ends (Netty removes its FastThreadLocals): frees the memory
        }
    };

    LoopReadBuffer() {
        super(16); // reads per readiness, as Netty's default
    }

    @Override
    public Handle newHandle() {
        return new MaxMessageHandle() {
            @Override
            public ByteBuf allocate(ByteBufAllocator alloc) {
                return BUFFER.get().retain().clear();
            }

            @Override
            public int guess() {
                return CAPACITY;
            }
        };
    }
}
