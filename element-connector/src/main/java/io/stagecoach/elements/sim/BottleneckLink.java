package io.stagecoach.elements.sim;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.random.RandomGenerator;

/**
 * A capacity-limited link with a tail-drop buffer, the model of a constrained access link.
 *
 * <p>A packet occupies {@code payload + overheadBytes} wire bytes (e.g. 8 UDP + 20 IPv4 = 28).
 * On arrival it is dropped if its wire size exceeds the MTU, if random loss strikes, or if the
 * buffer cannot hold it: the buffer counts every byte not yet fully serialised, including the
 * packet on the wire. Otherwise it is serialised after all earlier packets, taking
 * {@code ceil(wireBytes * 8 / bitRate)} seconds, and arrives {@code propagationDelay} after
 * its last bit left. Hence a packet that meets an idle link arrives after exactly
 * serialisation + propagation.
 */
public final class BottleneckLink implements Link {

    private final long bitRate;
    private final long propagationNanos;
    private final int mtu;
    private final long bufferBytes;
    private final int overheadBytes;
    private final double lossProbability;
    private final LinkCounters counters = new LinkCounters();

    // finish times and sizes of accepted packets whose last bit has not left yet
    private final ArrayDeque<long[]> inFlight = new ArrayDeque<>();
    private long queuedBytes;
    private long busyUntil = Long.MIN_VALUE;

    private BottleneckLink(Builder b) {
        bitRate = b.bitRate;
        propagationNanos = b.propagationDelay.toNanos();
        mtu = b.mtu;
        bufferBytes = b.bufferBytes;
        overheadBytes = b.overheadBytes;
        lossProbability = b.lossProbability;
    }

    /** A link of {@code bitsPerSecond} and {@code propagationDelay}; other settings keep defaults. */
    public static Builder builder(long bitsPerSecond, Duration propagationDelay) {
        return new Builder().bitRate(bitsPerSecond).propagationDelay(propagationDelay);
    }

    /** Time to put {@code wireBytes} on the wire, rounded up to whole nanoseconds. */
    public long serializationNanos(int wireBytes) {
        long bits = wireBytes * 8L * 1_000_000_000L;
        return (bits + bitRate - 1) / bitRate;
    }

    public int overheadBytes() {
        return overheadBytes;
    }

    /** Bytes waiting or on the wire at the last offer. */
    public long queuedBytes() {
        return queuedBytes;
    }

    @Override
    public long[] offer(int payloadBytes, long nowNanos, RandomGenerator random) {
        int wire = payloadBytes + overheadBytes;
        counters.recordSent(wire);
        if (wire > mtu) {
            counters.recordDroppedMtu();
            return new long[0];
        }
        if (lossProbability > 0 && random.nextDouble() < lossProbability) {
            counters.recordDroppedLoss();
            return new long[0];
        }
        while (!inFlight.isEmpty() && inFlight.peekFirst()[0] <= nowNanos) {
            queuedBytes -= inFlight.pollFirst()[1];
        }
        if (queuedBytes + wire > bufferBytes) {
            counters.recordDroppedBuffer();
            return new long[0];
        }
        long start = Math.max(nowNanos, busyUntil);
        long finish = start + serializationNanos(wire);
        busyUntil = finish;
        inFlight.addLast(new long[] {finish, wire});
        queuedBytes += wire;
        return new long[] {finish - nowNanos + propagationNanos};
    }

    @Override
    public void delivered(int payloadBytes) {
        counters.recordDelivered(payloadBytes + overheadBytes);
    }

    @Override
    public LinkCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "BottleneckLink[" + bitRate + " bit/s, " + Duration.ofNanos(propagationNanos) + ", mtu " + mtu
                + ", buffer " + bufferBytes + " B, overhead " + overheadBytes + " B]";
    }

    public static final class Builder {
        private long bitRate = 1_000_000;
        private Duration propagationDelay = Duration.ZERO;
        private int mtu = 1500;
        private long bufferBytes = 64 * 1024;
        private int overheadBytes = 28;
        private double lossProbability;

        private Builder() {
        }

        public Builder bitRate(long bitsPerSecond) {
            if (bitsPerSecond <= 0) {
                throw new IllegalArgumentException("bitRate must be positive: " + bitsPerSecond);
            }
            this.bitRate = bitsPerSecond;
            return this;
        }

        public Builder propagationDelay(Duration delay) {
            this.propagationDelay = LinkConditions.Builder.nonNegative("propagationDelay", delay);
            return this;
        }

        /** Largest wire size (payload + overhead) that passes; default 1500. */
        public Builder mtu(int bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("mtu must be positive: " + bytes);
            }
            this.mtu = bytes;
            return this;
        }

        /** Tail-drop buffer in bytes, counting the packet being serialised; default 64 KiB. */
        public Builder bufferBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("bufferBytes must be positive: " + bytes);
            }
            this.bufferBytes = bytes;
            return this;
        }

        /** Bytes added to every payload on the wire; default 28 (UDP 8 + IPv4 20). */
        public Builder overheadBytes(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("overheadBytes must not be negative: " + bytes);
            }
            this.overheadBytes = bytes;
            return this;
        }

        /** Random loss before the buffer (e.g. radio errors); default 0. */
        public Builder lossProbability(double p) {
            if (!(p >= 0.0 && p <= 1.0)) {
                throw new IllegalArgumentException("lossProbability must be in [0, 1]: " + p);
            }
            this.lossProbability = p;
            return this;
        }

        public BottleneckLink build() {
            return new BottleneckLink(this);
        }
    }
}
