package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The reuse rule of {@link PacketSlots}: a slot is refilled only once the channel released the
 * reference it was lent (the datagram was written or failed); until then a datagram gets a
 * packet of its own, so a packet waiting in the outbound buffer never changes.
 */
class PacketSlotsTest {

    private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1000);
    private static final InetSocketAddress B = new InetSocketAddress("127.0.0.2", 2000);

    private static String text(DatagramPacket p) {
        return p.content().toString(StandardCharsets.US_ASCII);
    }

    @Test
    void aSlotStillLentIsNotRefilledAndAReleasedOneIsReusedForAnotherRecipient() {
        PacketSlots slots = new PacketSlots(new UnpooledByteBufAllocator(false), 1, 64);
        DatagramPacket first = slots.fill(ByteBuffer.wrap("one".getBytes(StandardCharsets.US_ASCII)), A);
        assertEquals("one", text(first));
        assertEquals(A, first.recipient());
        assertEquals(2, first.content().refCnt(), "the slots' reference and the one lent to the channel");

        // not yet written: the next datagram must not touch it
        DatagramPacket second = slots.fill("two".getBytes(StandardCharsets.US_ASCII), B);
        assertNotSame(first, second);
        assertEquals("one", text(first));
        assertEquals(A, first.recipient());
        assertEquals("two", text(second));
        assertEquals(B, second.recipient());
        second.release(); // as the channel does after writing it: a packet of its own is freed
        assertEquals(0, second.content().refCnt());

        first.release(); // written: the slot is free again
        DatagramPacket third = slots.fill(ByteBuffer.wrap("three".getBytes(StandardCharsets.US_ASCII)), B);
        assertSame(first, third, "the slot is reused");
        assertEquals("three", text(third));
        assertEquals(B, third.recipient());
        third.release();

        ByteBuf buffer = third.content();
        slots.release();
        assertEquals(0, buffer.refCnt(), "the buffer went back to the allocator");
    }

    @Test
    void theRingTurnsOverItsSlots() {
        PacketSlots slots = new PacketSlots(new UnpooledByteBufAllocator(false), 2, 64);
        DatagramPacket a = slots.fill("a".getBytes(StandardCharsets.US_ASCII), A);
        DatagramPacket b = slots.fill("b".getBytes(StandardCharsets.US_ASCII), A);
        assertNotSame(a, b);
        a.release();
        b.release();
        assertSame(a, slots.fill("c".getBytes(StandardCharsets.US_ASCII), B));
        assertSame(b, slots.fill("d".getBytes(StandardCharsets.US_ASCII), B));
        assertEquals("c", text(a));
        assertEquals("d", text(b));
        a.release();
        b.release();
        slots.release();
        assertEquals(0, a.content().refCnt());
    }
}
