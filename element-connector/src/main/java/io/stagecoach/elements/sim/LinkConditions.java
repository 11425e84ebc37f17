package io.stagecoach.elements.sim;

import java.time.Duration;
import java.util.Objects;

/**
 * Impairments of an {@link ImpairedLink}: random loss, duplication, reordering, delay and jitter.
 * Immutable; the default is a perfect link with no delay.
 *
 * <p>Each copy is delayed by {@code delay + uniform[0, jitter]}; with
 * {@code reorderProbability} it gets {@code uniform[0, reorderDelay]} more, which lets later
 * packets overtake it.
 */
public final class LinkConditions {

    public static final LinkConditions PERFECT = builder().build();

    private final double lossProbability;
    private final double duplicationProbability;
    private final double reorderProbability;
    private final Duration reorderDelay;
    private final Duration delay;
    private final Duration jitter;

    private LinkConditions(Builder b) {
        lossProbability = b.lossProbability;
        duplicationProbability = b.duplicationProbability;
        reorderProbability = b.reorderProbability;
        reorderDelay = b.reorderDelay;
        delay = b.delay;
        jitter = b.jitter;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder newBuilder() {
        Builder b = new Builder();
        b.lossProbability = lossProbability;
        b.duplicationProbability = duplicationProbability;
        b.reorderProbability = reorderProbability;
        b.reorderDelay = reorderDelay;
        b.delay = delay;
        b.jitter = jitter;
        return b;
    }

    public double lossProbability() {
        return lossProbability;
    }

    public double duplicationProbability() {
        return duplicationProbability;
    }

    public double reorderProbability() {
        return reorderProbability;
    }

    public Duration reorderDelay() {
        return reorderDelay;
    }

    public Duration delay() {
        return delay;
    }

    public Duration jitter() {
        return jitter;
    }

    @Override
    public String toString() {
        return "loss=" + lossProbability + " dup=" + duplicationProbability + " reorder=" + reorderProbability
                + "/" + reorderDelay + " delay=" + delay + "+" + jitter;
    }

    public static final class Builder {
        private double lossProbability;
        private double duplicationProbability;
        private double reorderProbability;
        private Duration reorderDelay = Duration.ZERO;
        private Duration delay = Duration.ZERO;
        private Duration jitter = Duration.ZERO;

        private Builder() {
        }

        public Builder lossProbability(double p) {
            this.lossProbability = probability("lossProbability", p);
            return this;
        }

        public Builder duplicationProbability(double p) {
            this.duplicationProbability = probability("duplicationProbability", p);
            return this;
        }

        /** Probability that a copy is held back by up to {@code maxExtraDelay}. */
        public Builder reordering(double p, Duration maxExtraDelay) {
            this.reorderProbability = probability("reorderProbability", p);
            this.reorderDelay = nonNegative("reorderDelay", maxExtraDelay);
            return this;
        }

        public Builder delay(Duration delay) {
            this.delay = nonNegative("delay", delay);
            return this;
        }

        /** Extra delay drawn uniformly from {@code [0, jitter]} per copy. */
        public Builder jitter(Duration jitter) {
            this.jitter = nonNegative("jitter", jitter);
            return this;
        }

        public LinkConditions build() {
            return new LinkConditions(this);
        }

        private static double probability(String name, double p) {
            if (!(p >= 0.0 && p <= 1.0)) {
                throw new IllegalArgumentException(name + " must be in [0, 1]: " + p);
            }
            return p;
        }

        static Duration nonNegative(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative: " + d);
            }
            return d;
        }
    }
}
