package io.stagecoach.bench.load;

/**
 * The totals of a running step's clients since the step started, as a {@link StepClock} sees
 * them while it waits out a phase.
 *
 * @param sent            requests sent (first transmissions)
 * @param completed       2.xx answers
 * @param errors          other answers and RSTs
 * @param timeouts        requests that timed out
 * @param retransmissions CON requests sent again
 */
public record StepProgress(long sent, long completed, long errors, long timeouts, long retransmissions) {

    /** Answers of any code: {@link #completed()} + {@link #errors()}. */
    public long answered() {
        return completed + errors;
    }
}
