package io.stagecoach.elements.dtls;

import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * Which ClientHellos get a cookie check: a count per second in total and per source block (IPv4
 * address, IPv6 /64), and a share of the receive thread's time while established sessions send
 * records. Hellos are dropped before any work beyond the record screen when a budget is spent.
 *
 * <p><b>Counts.</b> Each is a generic cell rate algorithm (a token bucket holding one second's
 * worth): no timer, one timestamp per bucket. Sources hash into {@value #SLOTS} buckets instead
 * of a map, so a flood from spoofed sources cannot grow memory; sources sharing a bucket share its
 * budget, which errs on the side of dropping.
 *
 * <p><b>Time share.</b> Established sessions' records come first: while they arrive (one within
 * the last {@value #BUSY_MILLIS} ms), the measured cost of cookie work ({@link #charge}: the
 * check, the HelloVerifyRequest and its send) may use at most {@code busyPercent} % of the
 * time, so a flood from any number of sources, cheap or not to answer on this machine, takes at
 * most that share from the records. With no records arriving all time is spare and only the
 * counts apply. Bursts of up to {@value #WORK_WINDOW_MILLIS} ms of time's worth pass; debt
 * left by work done while idle is capped at the same, so hellos wait at most that long once
 * records resume.
 */
final class HelloBudget {

    static final int SLOTS = 4096;
    static final long BUSY_MILLIS = 100;
    static final long WORK_WINDOW_MILLIS = 100;
    private static final long SECOND = 1_000_000_000L;
    private static final long BUSY = TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS);
    private static final long WORK_WINDOW = TimeUnit.MILLISECONDS.toNanos(WORK_WINDOW_MILLIS);
    /** The record path notes its time at most this often (one volatile write per millisecond). */
    private static final long RECORD_NOTE = TimeUnit.MILLISECONDS.toNanos(1);

    private final long totalInterval;
    private final long sourceInterval;
    private final int busyPercent;
    private final Clock clock;
    private final long[] sourceDue = new long[SLOTS];
    private long totalDue;
    private long workDue;
    private boolean started;
    private volatile long lastRecord;
    private volatile boolean recordSeen;

    /**
     * @param busyPercent share of time for cookie work while records arrive, 1..100 (100: the
     *        time share never limits)
     */
    HelloBudget(int perSecond, int perSecondPerSource, int busyPercent, Clock clock) {
        if (busyPercent < 1 || busyPercent > 100) {
            throw new IllegalArgumentException("busyPercent " + busyPercent + " not in 1..100");
        }
        this.totalInterval = SECOND / perSecond;
        this.sourceInterval = SECOND / perSecondPerSource;
        this.busyPercent = busyPercent;
        this.clock = clock;
    }

    /** An established session's record arrived at {@code nowNanos} (the record path; cheap, lock-free). */
    void recordArrived(long nowNanos) {
        if (!recordSeen || nowNanos - lastRecord >= RECORD_NOTE) {
            lastRecord = nowNanos;
            recordSeen = true;
        }
    }

    /** Whether records arrived recently enough that cookie work yields to them. */
    boolean busy(long nowNanos) {
        return busyPercent < 100 && recordSeen && nowNanos - lastRecord < BUSY;
    }

    /** Takes one hello from every budget; false (and nothing taken) if one is spent. */
    synchronized boolean tryAcquire(InetAddress source) {
        long now = clock.nanoTime();
        if (!started) {
            java.util.Arrays.fill(sourceDue, now - SECOND);
            totalDue = now - SECOND;
            workDue = now - WORK_WINDOW;
            started = true;
        }
        if (busy(now) && Math.max(workDue, now - WORK_WINDOW) > now) {
            return false;
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

    /** The cookie work of a hello {@link #tryAcquire} let through took {@code workNanos}. */
    synchronized void charge(long workNanos) {
        if (workNanos <= 0 || busyPercent == 100) {
            return;
        }
        long now = clock.nanoTime();
        long from = Math.max(workDue, now - WORK_WINDOW);
        workDue = Math.min(from + workNanos * 100 / busyPercent, now + WORK_WINDOW);
    }
}
