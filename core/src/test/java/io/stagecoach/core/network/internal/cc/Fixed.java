package io.stagecoach.core.network.internal.cc;

import java.util.random.RandomGenerator;

/** Test helpers: time in nanos and random generators pinned to one end of a dithering range. */
final class Fixed {

    /** Always picks the lower end of [origin, bound): the timeout is exactly the base RTO. */
    static final RandomGenerator LOW = new Pinned(false);
    /** Always picks the upper end of [origin, bound): the timeout is base × ACK_RANDOM_FACTOR. */
    static final RandomGenerator HIGH = new Pinned(true);

    private Fixed() {
    }

    static long sec(double seconds) {
        return Math.round(seconds * 1e9);
    }

    static long ms(long millis) {
        return millis * 1_000_000L;
    }

    private record Pinned(boolean upper) implements RandomGenerator {
        @Override
        public long nextLong() {
            throw new AssertionError("strategies must draw bounded values");
        }

        @Override
        public long nextLong(long origin, long bound) {
            return upper ? bound - 1 : origin;
        }
    }
}
