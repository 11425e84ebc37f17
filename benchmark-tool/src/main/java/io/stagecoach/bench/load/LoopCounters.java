package io.stagecoach.bench.load;

/**
 * Running totals of one event loop. Written only by the loop thread (so {@code x++} on a
 * volatile is safe); read by the controller, which takes differences between snapshots.
 */
final class LoopCounters {

    volatile long sent;
    /** 2.xx responses. */
    volatile long completed;
    /** Non-2.xx responses and RST (RFC 7252 §4.2) to a request. */
    volatile long errors;
    /** Of the errors, 5.03 Service Unavailable answers (RFC 7252 §5.9.3.4): the server shed load. */
    volatile long unavailable;
    volatile long timeouts;
    /** CON requests sent again with the same MID and token (RFC 7252 §4.2). */
    volatile long retransmissions;
    /** Datagrams that matched no outstanding request (late answers after a timeout, duplicates). */
    volatile long stray;
    /** Requests outstanding right now. */
    volatile int inFlight;

    /** An immutable copy of the totals. */
    Snapshot snapshot() {
        return new Snapshot(sent, completed, errors, timeouts, stray, unavailable, retransmissions);
    }

    /** Totals at one instant; {@link #minus} gives the counts of an interval. */
    record Snapshot(long sent, long completed, long errors, long timeouts, long stray, long unavailable,
            long retransmissions) {

        static final Snapshot ZERO = new Snapshot(0, 0, 0, 0, 0, 0, 0);

        Snapshot plus(Snapshot o) {
            return new Snapshot(sent + o.sent, completed + o.completed, errors + o.errors,
                    timeouts + o.timeouts, stray + o.stray, unavailable + o.unavailable,
                    retransmissions + o.retransmissions);
        }

        Snapshot minus(Snapshot o) {
            return new Snapshot(sent - o.sent, completed - o.completed, errors - o.errors,
                    timeouts - o.timeouts, stray - o.stray, unavailable - o.unavailable,
                    retransmissions - o.retransmissions);
        }
    }
}
