package io.stagecoach.bench.scenario;

import org.HdrHistogram.Histogram;

/**
 * The outcomes of the innocent requests first sent in one phase of the flood scenario, filled by
 * the clients' thread and read by the controller; every method holds the tally's lock briefly.
 */
final class PhaseTally {

    /** How one request ended. */
    enum Outcome { SUCCESS, UNAVAILABLE, OTHER_CODE, RST, TIMEOUT }

    private final Histogram latencyUs;
    private long sent;
    private long retransmissions;
    private final long[] outcomes = new long[Outcome.values().length];

    PhaseTally(long highestMicros) {
        this.latencyUs = new Histogram(1, Math.max(2, highestMicros), 3);
    }

    synchronized void sent() {
        sent++;
    }

    synchronized void retransmitted() {
        retransmissions++;
    }

    synchronized void record(Outcome outcome, long micros) {
        outcomes[outcome.ordinal()]++;
        if (outcome == Outcome.SUCCESS) {
            latencyUs.recordValue(Math.max(1, Math.min(micros, latencyUs.getHighestTrackableValue())));
        }
    }

    /** Requests sent and not yet ended. */
    synchronized long outstanding() {
        long ended = 0;
        for (long n : outcomes) {
            ended += n;
        }
        return sent - ended;
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(sent, retransmissions, outcomes[Outcome.SUCCESS.ordinal()],
                outcomes[Outcome.UNAVAILABLE.ordinal()], outcomes[Outcome.OTHER_CODE.ordinal()],
                outcomes[Outcome.RST.ordinal()], outcomes[Outcome.TIMEOUT.ordinal()], latencyUs.copy());
    }

    /**
     * What a phase's innocent requests came to.
     *
     * @param sent            requests first sent in the phase
     * @param retransmissions their retransmissions
     * @param success         answered 2.xx
     * @param unavailable     answered 5.03
     * @param otherCode       answered with another code
     * @param rst             rejected with a RST
     * @param timeouts        not answered within the timeout
     * @param latencyUs       round-trip times of the successes, first transmission to answer (µs)
     */
    record Snapshot(long sent, long retransmissions, long success, long unavailable, long otherCode, long rst,
            long timeouts, Histogram latencyUs) {

        /** Requests with an outcome. */
        long ended() {
            return success + unavailable + otherCode + rst + timeouts;
        }

        /** Successes among the ended requests, 0..1; 0 when none ended. */
        double successRate() {
            return ended() == 0 ? 0 : (double) success / ended();
        }

        /** Answers other than 2.xx: 5.03, other codes, RSTs. */
        long refused() {
            return unavailable + otherCode + rst;
        }

        /** Latency at {@code percentile} in µs, or -1 without successes. */
        long percentileUs(double percentile) {
            return success == 0 ? -1 : latencyUs.getValueAtPercentile(percentile);
        }

        long maxUs() {
            return success == 0 ? -1 : latencyUs.getMaxValue();
        }
    }
}
