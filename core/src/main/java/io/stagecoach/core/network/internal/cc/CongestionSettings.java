package io.stagecoach.core.network.internal.cc;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable transmission parameters used by the congestion-control strategies.
 *
 * <p>Defaults: ACK_TIMEOUT 2 s and ACK_RANDOM_FACTOR 1.5 (RFC 7252 §4.8), initial CoCoA RTO 2 s
 * (draft-ietf-core-cocoa-03 §4.1, §4.2.1), maximum backed-off timeout 60 s (Järvinen et al.,
 * ANRW '18, §3.3), 1024 peers with remembered state.
 */
public final class CongestionSettings {

    private static final CongestionSettings DEFAULTS = new Builder().build();

    private final Duration ackTimeout;
    private final double ackRandomFactor;
    private final Duration initialRto;
    private final Duration maxBackedOffRto;
    private final int peerStateCapacity;

    private CongestionSettings(Builder b) {
        this.ackTimeout = b.ackTimeout;
        this.ackRandomFactor = b.ackRandomFactor;
        this.initialRto = b.initialRto;
        this.maxBackedOffRto = b.maxBackedOffRto;
        this.peerStateCapacity = b.peerStateCapacity;
    }

    /** The RFC 7252 / paper defaults listed in the class comment. */
    public static CongestionSettings defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder newBuilder() {
        return new Builder(this);
    }

    /** RFC 7252 §4.8 ACK_TIMEOUT: lower bound of the DEFAULT initial timeout. */
    public Duration ackTimeout() {
        return ackTimeout;
    }

    /** RFC 7252 §4.8 ACK_RANDOM_FACTOR: dithering factor of the initial timeout (all modes). */
    public double ackRandomFactor() {
        return ackRandomFactor;
    }

    /** draft-ietf-core-cocoa-03 §4.1: initial value of both CoCoA estimators and of the RTO. */
    public Duration initialRto() {
        return initialRto;
    }

    /** Upper bound of every timeout a strategy hands out, backed off or carried. */
    public Duration maxBackedOffRto() {
        return maxBackedOffRto;
    }

    /** Capacity of a {@link PeerStateMap} built for these settings. */
    public int peerStateCapacity() {
        return peerStateCapacity;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CongestionSettings other
                && ackTimeout.equals(other.ackTimeout)
                && Double.compare(ackRandomFactor, other.ackRandomFactor) == 0
                && initialRto.equals(other.initialRto)
                && maxBackedOffRto.equals(other.maxBackedOffRto)
                && peerStateCapacity == other.peerStateCapacity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ackTimeout, ackRandomFactor, initialRto, maxBackedOffRto, peerStateCapacity);
    }

    @Override
    public String toString() {
        return "CongestionSettings{ackTimeout=" + ackTimeout + ", ackRandomFactor=" + ackRandomFactor
                + ", initialRto=" + initialRto + ", maxBackedOffRto=" + maxBackedOffRto
                + ", peerStateCapacity=" + peerStateCapacity + '}';
    }

    /** Validating builder; {@link #build()} rejects inconsistent values. */
    public static final class Builder {
        private Duration ackTimeout = Duration.ofSeconds(2);
        private double ackRandomFactor = 1.5;
        private Duration initialRto = Duration.ofSeconds(2);
        private Duration maxBackedOffRto = Duration.ofSeconds(60);
        private int peerStateCapacity = 1024;

        private Builder() {
        }

        private Builder(CongestionSettings s) {
            this.ackTimeout = s.ackTimeout;
            this.ackRandomFactor = s.ackRandomFactor;
            this.initialRto = s.initialRto;
            this.maxBackedOffRto = s.maxBackedOffRto;
            this.peerStateCapacity = s.peerStateCapacity;
        }

        public Builder ackTimeout(Duration value) {
            this.ackTimeout = positive(value, "ackTimeout");
            return this;
        }

        /** Must be at least 1 (RFC 7252 §4.8: "MUST NOT be decreased below 1.0"). */
        public Builder ackRandomFactor(double value) {
            if (!(value >= 1.0) || Double.isInfinite(value)) {
                throw new IllegalArgumentException("ackRandomFactor must be a finite number >= 1.0, got " + value);
            }
            this.ackRandomFactor = value;
            return this;
        }

        public Builder initialRto(Duration value) {
            this.initialRto = positive(value, "initialRto");
            return this;
        }

        public Builder maxBackedOffRto(Duration value) {
            this.maxBackedOffRto = positive(value, "maxBackedOffRto");
            return this;
        }

        public Builder peerStateCapacity(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("peerStateCapacity must be >= 1, got " + value);
            }
            this.peerStateCapacity = value;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the maximum backed-off timeout is below the largest
         *     initial timeout (ACK_TIMEOUT × ACK_RANDOM_FACTOR or the initial CoCoA RTO), which
         *     would make backoff meaningless, or if a value overflows nanosecond arithmetic
         */
        public CongestionSettings build() {
            long maxNanos = nanos(maxBackedOffRto, "maxBackedOffRto");
            double upperInitial = nanos(ackTimeout, "ackTimeout") * ackRandomFactor;
            if (maxNanos < upperInitial || maxNanos < nanos(initialRto, "initialRto")) {
                throw new IllegalArgumentException("maxBackedOffRto " + maxBackedOffRto
                        + " is below the largest initial timeout (ackTimeout x ackRandomFactor = "
                        + Duration.ofNanos((long) upperInitial) + ", initialRto = " + initialRto + ")");
            }
            return new CongestionSettings(this);
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }

        private static long nanos(Duration value, String name) {
            // ~292 years fit in a long of nanos; a timeout beyond a day is a configuration error.
            if (value.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException(name + " must not exceed one day, got " + value);
            }
            return value.toNanos();
        }
    }
}
