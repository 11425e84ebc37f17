package io.stagecoach.elements.netty;

import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * The receive buffer of a channel that reads with {@code recvmmsg}, sized to the datagrams that
 * are actually waiting. Netty's epoll datagram channel offers {@code recvmmsg} one slot of
 * {@code slot} bytes for each {@code slot} the buffer holds, and prepares every offered slot
 * (the message headers, their JNI fields) whether a datagram arrives in it or not: with a fixed
 * buffer of 64 slots, a call that finds two datagrams, or none (every edge-triggered read ends
 * with one), costs the preparation of 64. Under a flood of small bursts that is most calls.
 *
 * <p>So the number of slots follows the calls: it doubles, up to {@code maxSlots}, after a call
 * that filled every slot, and halves, down to {@link #MIN_SLOTS}, after a call that filled
 * fewer than half. A server whose socket always holds a backlog reads full batches of
 * {@code maxSlots}; one that drains its socket in every call offers few slots. Never fewer
 * than two: with one slot Netty reads with {@code recvmsg}, and a read of one datagram gives
 * no count of slots filled to grow by.
 */
final class BatchSizer extends DefaultMaxMessagesRecvByteBufAllocator {

    static final int MIN_SLOTS = 2;

    private final int slot;
    private final int maxSlots;

    /**
     * @param slot     bytes of one slot (Netty's {@code maxDatagramPayloadSize})
     * @param maxSlots the most slots per call ({@code udp.batch-size})
     */
    BatchSizer(int slot, int maxSlots) {
        super(Math.max(16, maxSlots));
        if (slot < 1 || maxSlots < MIN_SLOTS) {
            throw new IllegalArgumentException("slot " + slot + " and maxSlots " + maxSlots
                    + " (at least " + MIN_SLOTS + ")");
        }
        this.slot = slot;
        this.maxSlots = maxSlots;
    }

    @Override
    public Handle newHandle() {
        return new SizedHandle();
    }

    /** One channel's handle (Netty keeps one per channel, used on its event loop only). */
    final class SizedHandle extends MaxMessageHandle {
        private int slots = MIN_SLOTS;

        @Override
        public int guess() {
            return slot * slots;
        }

        /** Slots the next call offers. */
        int slots() {
            return slots;
        }

        /**
         * After each {@code recvmmsg}: Netty reports the slots filled times the slot size
         * (or -1 for a call that found nothing).
         */
        @Override
        public void lastBytesRead(int bytes) {
            super.lastBytesRead(bytes);
            int filled = bytes <= 0 ? 0 : bytes / slot;
            if (filled >= slots) {
                slots = Math.min(maxSlots, slots * 2);
            } else if (filled < slots / 2) {
                slots = Math.max(MIN_SLOTS, slots / 2);
            }
        }
    }
}
