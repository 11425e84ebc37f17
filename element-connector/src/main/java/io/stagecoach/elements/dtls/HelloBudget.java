package io.stagecoach.elements.dtls;

import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;

/**
 * How many ClientHellos per second get a cookie check: in total and per source block (IPv4
 * address, IPv6 /64). Each budget is a generic cell rate algorithm (a token bucket holding one
 * second's worth): no timer, one timestamp per bucket. Sources hash into {@value #SLOTS} buckets
 * instead of a map, so a flood from spoofed sources cannot grow memory; sources sharing a bucket
 * share its budget, which errs on the side of dropping.
 */
final class HelloBudget {

    static final int SLOTS = 4096;
    private static final long SECOND = 1_000_000_000L;

    private final long totalInterval;
    private final long sourceInterval;
    private final Clock clock;
    private final long[] sourceDue = new long[SLOTS];
    private long totalDue = Long.MIN_VALUE;
    private boolean started;

    public HelloBudget(int perSecond, int perSecondPerSource, Clock clock) {
        this.totalInterval = SECOND / perSecond;
        this.sourceInterval = SECOND / perSecondPerSource;
        this.clock = clock;
    }

    /** Takes one hello from both budgets; false (and nothing taken) if either is spent. */
    public synchronized boolean tryAcquire(InetAddress source) {
        long now = clock.nanoTime();
        if (!started) {
            java.util.Arrays.fill(sourceDue, now - SECOND);
            totalDue = now - SECOND;
            started = true;
        }
        int slot = SourceBlock.hash(source) & (SLOTS - 1);
        long total = Math.max(totalDue, now - SECOND);
        long mine = Math.max(sourceDue[slot], now - SECOND);
        if (total + totalInterval > now || mine + sourceInterval > now) {
            return false;
        }
        totalDue = total + totalInterval;
        sourceDue[slot] = mine + sourceInterval;
        return true;
    }
}
