package io.stagecoach.elements;

import io.stagecoach.elements.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one log line through per period and counts the ones it holds back, for errors that a
 * faulty handler or a hostile peer can repeat thousands of times a second: each would otherwise
 * cost a stack trace on the console (measured in docs/reliability.md, Faults: at 1 % injected
 * faults the per-fault traces alone cost up to 30 % of the throughput). The exact totals stay
 * in the counters; the log gives one sample per period and how many were left out.
 *
 * <p>Lock-free: callers race with one compare-and-set on the error path only.
 */
public final class LogThrottle {

    private final Clock clock;
    private final long periodNanos;
    private final AtomicLong nextNanos;
    private final AtomicLong held = new AtomicLong();

    public LogThrottle(Clock clock, Duration period) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (period.isNegative()) {
            throw new IllegalArgumentException("period must not be negative: " + period);
        }
        this.periodNanos = period.toNanos();
        this.nextNanos = new AtomicLong(clock.nanoTime());
    }

    /**
     * Records one event: {@code -1} when it should not be logged (another was logged less than
     * a period ago), otherwise how many were held back since the last one logged (0 at first).
     */
    public long tryAcquire() {
        long now = clock.nanoTime();
        long next = nextNanos.get();
        if (now - next >= 0 && nextNanos.compareAndSet(next, now + periodNanos)) {
            return held.getAndSet(0);
        }
        held.incrementAndGet();
        return -1;
    }
}
