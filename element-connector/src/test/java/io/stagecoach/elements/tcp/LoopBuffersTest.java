package io.stagecoach.elements.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The event loop's shared read buffer and write slab, on an in-memory channel. */
class LoopBuffersTest {

    private final EmbeddedChannel ch = new EmbeddedChannel();

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    /**
     * Runs {@code body} on a new thread of Netty's kind, as an event loop's: its own slab and
     * buffer, released when it ends.
     */
    private static void onLoopThread(Runnable body) throws InterruptedException {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new DefaultThreadFactory("loop-buffers-test").newThread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() instanceof AssertionError e) {
            throw e;
        } else if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }

    /** The buffer under any slices and leak-detector wrappers. */
    private static ByteBuf root(ByteBuf b) {
        ByteBuf r = b;
        while (r.unwrap() != null) {
            r = r.unwrap();
        }
        return r;
    }

    @Test
    void everyReadOfALoopGetsTheSameMemoryWithOneReferenceToRelease() throws InterruptedException {
        onLoopThread(() -> {
            RecvByteBufAllocator.Handle h = new LoopReadBuffer().newHandle();
            ByteBuf first = h.allocate(ByteBufAllocator.DEFAULT);
            int held = first.refCnt();
            first.writeBytes(bytes(20, 1));
            first.release(); // what the pipeline's consumer does
            ByteBuf second = h.allocate(ByteBufAllocator.DEFAULT);
            assertSame(first, second);
            assertEquals(held, second.refCnt(), "one reference per read, released by its consumer");
            assertEquals(0, second.readableBytes(), "cleared for the next read");
            assertEquals(LoopReadBuffer.CAPACITY, second.writableBytes());
            second.release();
        });
    }

    @Test
    void smallFramesOfAnIdleChannelShareTheLoopsSlab() throws InterruptedException {
        onLoopThread(() -> {
            byte[] a = bytes(20, 1);
            byte[] b = bytes(33, 7);
            ByteBuf sa = LoopWriteSlab.copy(ch, a);
            ch.writeAndFlush(sa); // written: nothing waits on the channel any more
            ByteBuf sb = LoopWriteSlab.copy(ch, b);
            assertSame(root(sa), root(sb), "slices of one slab");
            assertArrayEquals(a, ByteBufUtil.getBytes(sa));
            assertArrayEquals(b, ByteBufUtil.getBytes(sb));
            sb.release();
        });
    }

    @Test
    void aChannelWithAWriteWaitingGetsItsOwnBuffer() throws InterruptedException {
        onLoopThread(() -> {
            ByteBuf waiting = LoopWriteSlab.copy(ch, bytes(20, 1));
            ch.write(waiting); // not flushed: it waits, and pins its slab
            ByteBuf next = LoopWriteSlab.copy(ch, bytes(20, 2));
            assertNotSame(root(waiting), root(next), "one pinned slab per connection at most");
            assertArrayEquals(bytes(20, 2), ByteBufUtil.getBytes(next));
            next.release();
        });
    }

    @Test
    void largeFramesGetTheirOwnBuffer() throws InterruptedException {
        onLoopThread(() -> {
            byte[] big = bytes(LoopWriteSlab.MAX_FRAME + 1, 3);
            ByteBuf small = LoopWriteSlab.copy(ch, bytes(10, 1));
            ch.writeAndFlush(small);
            ByteBuf own = LoopWriteSlab.copy(ch, big);
            assertNotSame(root(small), root(own));
            assertArrayEquals(big, ByteBufUtil.getBytes(own));
            own.release();
        });
    }

    @Test
    void aFullSlabIsLeftToItsSlicesAndFreedWithTheLast() throws InterruptedException {
        onLoopThread(() -> {
            byte[] f = bytes(LoopWriteSlab.MAX_FRAME, 5);
            ByteBuf first = LoopWriteSlab.copy(ch, f);
            ByteBuf slab = root(first);
            ch.writeAndFlush(first);
            ByteBuf s = first;
            for (int i = 1; i <= LoopWriteSlab.SLAB / f.length; i++) {
                s = LoopWriteSlab.copy(ch, f);
                ch.writeAndFlush(s);
            }
            assertNotSame(slab, root(s), "the next frame did not fit: a new slab");
            for (Object m; (m = ch.readOutbound()) != null; ) {
                ByteBuf written = (ByteBuf) m;
                assertEquals(Arrays.toString(f), Arrays.toString(ByteBufUtil.getBytes(written)));
                written.release(); // as the socket's write does
            }
            assertEquals(0, slab.refCnt(), "freed once the loop moved on and its slices were written");
        });
    }
}
