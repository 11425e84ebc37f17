package io.stagecoach.elements.sim;

import java.util.Objects;
import java.util.random.RandomGenerator;

/** A link with no capacity limit that loses, duplicates, reorders and delays per {@link LinkConditions}. */
public final class ImpairedLink implements Link {

    private final LinkConditions conditions;
    private final LinkCounters counters = new LinkCounters();

    public ImpairedLink(LinkConditions conditions) {
        this.conditions = Objects.requireNonNull(conditions, "conditions");
    }

    public LinkConditions conditions() {
        return conditions;
    }

    @Override
    public long[] offer(int payloadBytes, long nowNanos, RandomGenerator random) {
        counters.recordSent(payloadBytes);
        if (conditions.lossProbability() > 0 && random.nextDouble() < conditions.lossProbability()) {
            counters.recordDroppedLoss();
            return new long[0];
        }
        boolean dup = conditions.duplicationProbability() > 0
                && random.nextDouble() < conditions.duplicationProbability();
        if (dup) {
            counters.recordDuplicated();
            return new long[] {delay(random), delay(random)};
        }
        return new long[] {delay(random)};
    }

    private long delay(RandomGenerator random) {
        long d = conditions.delay().toNanos();
        long jitter = conditions.jitter().toNanos();
        if (jitter > 0) {
            d += random.nextLong(jitter + 1);
        }
        if (conditions.reorderProbability() > 0 && random.nextDouble() < conditions.reorderProbability()) {
            counters.recordReordered();
            long extra = conditions.reorderDelay().toNanos();
            if (extra > 0) {
                d += random.nextLong(extra + 1);
            }
        }
        return d;
    }

    @Override
    public void delivered(int payloadBytes) {
        counters.recordDelivered(payloadBytes);
    }

    @Override
    public LinkCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "ImpairedLink[" + conditions + "]";
    }
}
