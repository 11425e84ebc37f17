package io.stagecoach.bench.load;

import java.time.Duration;

/**
 * The client's CON retransmission rule (RFC 7252 §4.2) as CoAPBench applies it: the request is
 * sent again, with the same MID and token, {@code initial} after the first transmission, then
 * after each doubled interval, at most {@link #MAX_RETRANSMIT} times. Retransmission {@code k}
 * (1-based) is therefore due {@code initial × (2^k − 1)} after the first transmission. Unlike
 * the RFC's ACK_TIMEOUT there is no random factor: runs stay comparable.
 *
 * <p>The request still counts as a timeout when {@link LoadSpec#timeout()} has passed since the
 * first transmission, retransmitted or not; retransmissions that would fall after it are not
 * sent. {@link #OFF} (initial 0) never retransmits: the default, so that numbers measured
 * without it stay comparable.
 */
record Retransmission(long initialNanos) {

    /** RFC 7252 §4.8 MAX_RETRANSMIT. */
    static final int MAX_RETRANSMIT = 4;

    static final Retransmission OFF = new Retransmission(0);

    /** What the deadline scan does with an outstanding request. */
    enum Action { WAIT, RETRANSMIT, TIMEOUT }

    Retransmission {
        if (initialNanos < 0) {
            throw new IllegalArgumentException("retransmission interval must not be negative: " + initialNanos);
        }
    }

    static Retransmission of(Duration initial) {
        return initial.isZero() ? OFF : new Retransmission(initial.toNanos());
    }

    boolean enabled() {
        return initialNanos > 0;
    }

    /** Nanoseconds after the first transmission at which retransmission {@code k} (1..4) is due. */
    long dueAfter(int k) {
        if (k < 1 || k > MAX_RETRANSMIT) {
            throw new IllegalArgumentException("retransmission number must be 1.." + MAX_RETRANSMIT + ": " + k);
        }
        return initialNanos * ((1L << k) - 1);
    }

    /**
     * The decision for a request first sent {@code ageNanos} ago that was retransmitted
     * {@code done} times: the timeout wins, then a due retransmission, else wait.
     */
    Action decide(long ageNanos, int done, long timeoutNanos) {
        if (ageNanos >= timeoutNanos) {
            return Action.TIMEOUT;
        }
        if (enabled() && done < MAX_RETRANSMIT && ageNanos >= dueAfter(done + 1)) {
            return Action.RETRANSMIT;
        }
        return Action.WAIT;
    }

    /**
     * How often the loop scans its clients: every {@code timeout / 20}, and at least four times
     * per initial interval when retransmitting, within 1..100 ms.
     */
    long scanNanos(long timeoutNanos) {
        long scan = timeoutNanos / 20;
        if (enabled()) {
            scan = Math.min(scan, initialNanos / 4);
        }
        return Math.max(1_000_000L, Math.min(100_000_000L, scan));
    }
}
