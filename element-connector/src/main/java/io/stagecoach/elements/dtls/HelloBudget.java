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
 *
 * <p><b>Source ports.</b> A first hello (no cookie) gets at most one answer per source port
 * every {@value #PORT_INTERVAL_MILLIS} ms, RFC 6347 §4.2.4.1's initial retransmission timer: a
 * client waits at least that long before it sends its hello again, so each of its
 * retransmissions still finds its port's turn, while a flood from many ports of one address
 * spends one count per port and second instead of the address's whole budget. That is what
 * lets a client behind the flooding address (a NAT) through: its port competes with each
 * flooding port, not with the flood's rate. Each answered (source block, port) is kept with its
 * time in one of two of {@value #PORT_SLOTS} slots (the one answered longer ago gives way); a
 * port is held back only by its own entry, never by another source's, so a spoofed flood from
 * many sources holds back no one: at worst it evicts entries before their second is over,
 * which lets a flooding port be answered sooner, within the counts. A returned cookie gives
 * the port's turn back ({@link #cookieReturned}), so a real client reconnecting from the same
 * port is answered at once. A client whose timer is shorter than the interval and whose
 * HelloVerifyRequest was lost sends the same hello again (same random): such a repeat is answered
 * up to {@value #PORT_REPEATS} times within the interval, since it costs a flooder the same
 * count as before and a client nothing. A hello with a
 * cookie (the second of a handshake) meets only the counts above; so does a flood from more
 * ports of one address than its count per second, which then shares that count with the
 * client as before.
 */
final class HelloBudget {

    static final int SLOTS = 4096;
    private static final int PORT_BITS = 15;
    static final int PORT_SLOTS = 1 << PORT_BITS;
    static final long PORT_INTERVAL_MILLIS = 1000;
    static final int PORT_REPEATS = 3;
    private static final long PORT_INTERVAL = TimeUnit.MILLISECONDS.toNanos(PORT_INTERVAL_MILLIS);
    /** Multipliers of a port key's two slots (golden ratio and a murmur constant: independent top bits). */
    private static final long PORT_HASH_1 = 0x9E3779B97F4A7C15L;
    private static final long PORT_HASH_2 = 0xC2B2AE3D27D4EB4FL;
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
    /** Which (source block, port) each port slot holds, and when it may be answered again; allocated with the first hello (servers only). */
    private long[] portKey;
    private long[] portDue;
    /** The answered hello's random (its last 8 bytes) and how often it was answered again since. */
    private long[] portRandom;
    private byte[] portRepeats;
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

    /** Takes one hello (with a cookie, or of unknown port) from every count; false (and nothing taken) if one is spent. */
    boolean tryAcquire(InetAddress source) {
        return tryAcquire(source, -1, 0, clock.nanoTime());
    }

    /**
     * Takes one hello from every budget; false (and nothing taken) if one is spent.
     *
     * @param firstHelloPort the source port of a hello without a cookie, which also meets the
     *        port's turn; -1 for a hello with a cookie
     * @param helloRandom the last 8 bytes of that hello's random: the same again is a retransmission
     * @param now the clock's reading when the hello was received
     */
    synchronized boolean tryAcquire(InetAddress source, int firstHelloPort, long helloRandom, long now) {
        if (!started) {
            java.util.Arrays.fill(sourceDue, now - SECOND);
            totalDue = now - SECOND;
            workDue = now - WORK_WINDOW;
            portKey = new long[PORT_SLOTS];
            portDue = new long[PORT_SLOTS];
            portRandom = new long[PORT_SLOTS];
            portRepeats = new byte[PORT_SLOTS];
            java.util.Arrays.fill(portDue, now - PORT_INTERVAL);
            started = true;
        }
        if (busy(now) && Math.max(workDue, now - WORK_WINDOW) > now) {
            return false;
        }
        int hash = SourceBlock.hash(source);
        long key = ((long) hash << 16) ^ firstHelloPort;
        int port1 = 0;
        int port2 = 0;
        int repeated = -1;
        if (firstHelloPort >= 0) {
            port1 = portSlot(key, PORT_HASH_1);
            port2 = portSlot(key, PORT_HASH_2);
            int own = portKey[port1] == key && portDue[port1] > now ? port1
                    : portKey[port2] == key && portDue[port2] > now ? port2 : -1;
            if (own >= 0) {
                if (portRandom[own] != helloRandom || portRepeats[own] >= PORT_REPEATS) {
                    return false;
                }
                repeated = own;
            }
        }
        int slot = hash & (SLOTS - 1);
        long total = Math.max(totalDue, now - SECOND);
        long mine = Math.max(sourceDue[slot], now - SECOND);
        if (total + totalInterval > now || mine + sourceInterval > now) {
            return false;
        }
        totalDue = total + totalInterval;
        sourceDue[slot] = mine + sourceInterval;
        if (repeated >= 0) {
            portRepeats[repeated]++;
        } else if (firstHelloPort >= 0) {
            int kept = portKey[port2] == key || portKey[port1] != key && portDue[port2] < portDue[port1] ? port2 : port1;
            portKey[kept] = key;
            portDue[kept] = now + PORT_INTERVAL;
            portRandom[kept] = helloRandom;
            portRepeats[kept] = 0;
        }
        return true;
    }

    /**
     * A hello from {@code source}:{@code port} returned a valid cookie: the client is real, so its
     * port's turn is given back and a new handshake from the same port (a reconnect, a resumption)
     * is answered at once instead of after the interval.
     */
    synchronized void cookieReturned(InetAddress source, int port) {
        if (portKey == null) {
            return;
        }
        long key = ((long) SourceBlock.hash(source) << 16) ^ port;
        giveBack(portSlot(key, PORT_HASH_1), key);
        giveBack(portSlot(key, PORT_HASH_2), key);
    }

    private void giveBack(int slot, long key) {
        if (portKey[slot] == key) {
            portDue[slot] = Long.MIN_VALUE;
        }
    }

    /** One of a port's two slots: a multiplicative hash of its key (source block, port), the top bits. */
    private static int portSlot(long key, long multiplier) {
        return (int) (key * multiplier >>> (64 - PORT_BITS));
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
