package io.stagecoach.elements;

import java.util.concurrent.atomic.LongAdder;

/**
 * Event counts of one connector since it was built (they survive stop/start). Increments are
 * cheap under contention ({@link LongAdder}); reads are not atomic across counters, use
 * {@link #snapshot()} for a consistent-enough picture.
 */
public final class ConnectorCounters {

    /** All counters at 0. */
    public ConnectorCounters() {
    }

    /** Counter values at one moment. */
    public record Snapshot(long received, long sent, long droppedOversize, long droppedQueueFull,
            long sendErrors) {
        @Override
        public String toString() {
            return "received=" + received + " sent=" + sent + " droppedOversize=" + droppedOversize
                    + " droppedQueueFull=" + droppedQueueFull + " sendErrors=" + sendErrors;
        }
    }

    private final LongAdder received = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder droppedOversize = new LongAdder();
    private final LongAdder droppedQueueFull = new LongAdder();
    private final LongAdder sendErrors = new LongAdder();
    private final LongAdder receiverRestarts = new LongAdder();

    /** Datagrams handed to the {@link RawDataReceiver}. */
    public long received() {
        return received.sum();
    }

    /** Datagrams handed to the socket successfully. */
    public long sent() {
        return sent.sum();
    }

    /** Datagrams larger than the maximum datagram size, inbound (dropped) and outbound (rejected). */
    public long droppedOversize() {
        return droppedOversize.sum();
    }

    /** Outbound datagrams rejected because the outbound queue was full. */
    public long droppedQueueFull() {
        return droppedQueueFull.sum();
    }

    /** Outbound datagrams the socket refused, or sent while the connector was stopped. */
    public long sendErrors() {
        return sendErrors.sum();
    }

    /**
     * Receive threads that died unexpectedly (the receiver threw an Error) and were replaced; for
     * the Netty connector, receiver Errors its event loop caught and survived (no thread died).
     * Not in {@link Snapshot}, which keeps its shape.
     */
    public long receiverRestarts() {
        return receiverRestarts.sum();
    }

    public void incrementReceiverRestarts() {
        receiverRestarts.increment();
    }

    public void incrementReceived() {
        received.increment();
    }

    public void incrementSent() {
        sent.increment();
    }

    /** Counts {@code n} datagrams sent at once (a connector that confirms a batch of writes). */
    public void addSent(long n) {
        sent.add(n);
    }

    public void incrementDroppedOversize() {
        droppedOversize.increment();
    }

    public void incrementDroppedQueueFull() {
        droppedQueueFull.increment();
    }

    public void incrementSendErrors() {
        sendErrors.increment();
    }

    public Snapshot snapshot() {
        return new Snapshot(received(), sent(), droppedOversize(), droppedQueueFull(), sendErrors());
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
