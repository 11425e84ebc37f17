package io.stagecoach.core.network.internal.layers;

/**
 * Observe sequence numbers (RFC 7641 §3.4, §4.4): 24-bit values compared in serial-number
 * arithmetic, so that the order survives the wrap from 2^24-1 to 0.
 */
public final class ObserveSequence {

    /** Sequence numbers are 24 bits long. */
    public static final int MASK = 0xFF_FFFF;

    /** Half the number space: the largest distance still read as "newer" (2^23). */
    static final int HALF = 1 << 23;

    /** Notifications more than this far apart on the client's clock are fresh whatever their numbers. */
    public static final long FRESHNESS_NANOS = 128_000_000_000L;

    private ObserveSequence() {
    }

    /** The number following {@code seq}, wrapping at 2^24. */
    public static int next(int seq) {
        return (seq + 1) & MASK;
    }

    /**
     * Whether {@code v2} is newer than {@code v1} by numbers alone: (V1 &lt; V2 and V2 - V1 &lt; 2^23)
     * or (V1 &gt; V2 and V1 - V2 &gt; 2^23).
     */
    public static boolean isNewer(int v1, int v2) {
        return (v1 < v2 && v2 - v1 < HALF) || (v1 > v2 && v1 - v2 > HALF);
    }

    /**
     * The client's freshness test of RFC 7641 §3.4: {@code v2} received at {@code t2} is newer than
     * {@code v1} received at {@code t1} when its number is newer, or when more than 128 s passed.
     */
    public static boolean isFresh(int v1, long t1Nanos, int v2, long t2Nanos) {
        return isNewer(v1, v2) || t2Nanos - t1Nanos > FRESHNESS_NANOS;
    }
}
