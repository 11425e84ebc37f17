package io.stagecoach.elements.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The outbound datagrams of one event loop, reused instead of allocated: a ring of
 * {@code udp.batch-size} packets, each with a direct buffer of {@code udp.max-datagram-size}
 * bytes taken from the channel's allocator on first use (at most 64 × 2 KiB per channel with
 * the defaults). An answer written from the loop then costs no {@link DatagramPacket}, no
 * {@link ByteBuf} from the pool and no pass through Netty's leak sampler: ~100 B less garbage
 * per answer than a packet of its own.
 *
 * <p>The connector keeps one reference to each slot's buffer and lends the channel a second one
 * per write; the channel drops it once the datagram is written or has failed. A slot whose
 * buffer has one reference left is therefore free, and a slot still waiting in the channel's
 * outbound buffer (the socket's send buffer was full) is never refilled: the datagram takes a
 * packet of its own instead. Event loop only.
 */
final class PacketSlots {

    private final ByteBufAllocator alloc;
    private final int capacity;
    private final Slot[] ring;
    private int next;

    /**
     * @param slots    packets in the ring: the answers one batch may hold before its flush
     * @param capacity bytes of each slot's buffer: the largest datagram the connector sends
     */
    PacketSlots(ByteBufAllocator alloc, int slots, int capacity) {
        this.alloc = alloc;
        this.capacity = capacity;
        this.ring = new Slot[Math.max(1, slots)];
    }

    /** A packet holding the bytes of {@code datagram} (consumed) for {@code recipient}, to be written once. */
    DatagramPacket fill(ByteBuffer datagram, InetSocketAddress recipient) {
        Slot s = take(recipient);
        if (s == null) {
            return new DatagramPacket(alloc.directBuffer(datagram.remaining()).writeBytes(datagram), recipient);
        }
        s.content().writeBytes(datagram);
        return s;
    }

    /** A packet holding {@code bytes} for {@code recipient}, to be written once. */
    DatagramPacket fill(byte[] bytes, InetSocketAddress recipient) {
        Slot s = take(recipient);
        if (s == null) {
            return new DatagramPacket(alloc.directBuffer(bytes.length).writeBytes(bytes), recipient);
        }
        s.content().writeBytes(bytes);
        return s;
    }

    /** The next slot, emptied, addressed and lent once more; {@code null} while it is still in use. */
    private Slot take(InetSocketAddress recipient) {
        Slot s = ring[next];
        if (s == null) {
            s = new Slot(alloc.directBuffer(capacity, capacity), recipient);
            ring[next] = s;
        } else if (s.content().refCnt() != 1) {
            return null;
        }
        next = next + 1 == ring.length ? 0 : next + 1;
        s.to = recipient;
        s.content().clear();
        s.retain(); // the channel's reference, released when the datagram is written or failed
        return s;
    }

    /** Gives the buffers back to the allocator; after the channel closed (it released its references). */
    void release() {
        for (int i = 0; i < ring.length; i++) {
            Slot s = ring[i];
            if (s != null && s.content().refCnt() > 0) {
                s.content().release(s.content().refCnt());
            }
            ring[i] = null;
        }
    }

    /**
     * A packet whose recipient is set for each use. The channel reads the recipient through
     * {@link #recipient()} when it writes the packet, and the slot is only refilled after that.
     */
    private static final class Slot extends DatagramPacket {
        private InetSocketAddress to;

        Slot(ByteBuf content, InetSocketAddress recipient) {
            super(content, recipient);
            this.to = recipient;
        }

        @Override
        public InetSocketAddress recipient() {
            return to;
        }
    }
}
