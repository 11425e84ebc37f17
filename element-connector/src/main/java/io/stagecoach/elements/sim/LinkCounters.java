package io.stagecoach.elements.sim;

import java.util.concurrent.atomic.LongAdder;

/**
 * What happened on one {@link Link}. Bytes are wire bytes: payload plus the link's per-packet
 * overhead (UDP and IP headers on a {@link BottleneckLink}, none on an {@link ImpairedLink}).
 */
public final class LinkCounters {

    /** All counters at 0. */
    public LinkCounters() {
    }

    private final LongAdder packetsSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder packetsDelivered = new LongAdder();
    private final LongAdder bytesDelivered = new LongAdder();
    private final LongAdder droppedBuffer = new LongAdder();
    private final LongAdder droppedMtu = new LongAdder();
    private final LongAdder droppedLoss = new LongAdder();
    private final LongAdder duplicated = new LongAdder();
    private final LongAdder reordered = new LongAdder();

    void recordSent(int bytes) {
        packetsSent.increment();
        bytesSent.add(bytes);
    }

    void recordDelivered(int bytes) {
        packetsDelivered.increment();
        bytesDelivered.add(bytes);
    }

    void recordDroppedBuffer() {
        droppedBuffer.increment();
    }

    void recordDroppedMtu() {
        droppedMtu.increment();
    }

    void recordDroppedLoss() {
        droppedLoss.increment();
    }

    void recordDuplicated() {
        duplicated.increment();
    }

    void recordReordered() {
        reordered.increment();
    }

    /** Packets offered to the link (before any drop). */
    public long packetsSent() {
        return packetsSent.sum();
    }

    public long bytesSent() {
        return bytesSent.sum();
    }

    /** Copies that left the far end, duplicates included. */
    public long packetsDelivered() {
        return packetsDelivered.sum();
    }

    public long bytesDelivered() {
        return bytesDelivered.sum();
    }

    /** Tail drops: the buffer could not hold the packet. */
    public long droppedBuffer() {
        return droppedBuffer.sum();
    }

    /** Packets larger than the link MTU. */
    public long droppedMtu() {
        return droppedMtu.sum();
    }

    /** Random loss. */
    public long droppedLoss() {
        return droppedLoss.sum();
    }

    /** Extra copies created. */
    public long duplicated() {
        return duplicated.sum();
    }

    /** Copies given the extra reordering delay. */
    public long reordered() {
        return reordered.sum();
    }

    @Override
    public String toString() {
        return "sent=" + packetsSent() + "/" + bytesSent() + "B delivered=" + packetsDelivered() + "/"
                + bytesDelivered() + "B droppedBuffer=" + droppedBuffer() + " droppedMtu=" + droppedMtu()
                + " droppedLoss=" + droppedLoss() + " duplicated=" + duplicated() + " reordered="
                + reordered();
    }
}
