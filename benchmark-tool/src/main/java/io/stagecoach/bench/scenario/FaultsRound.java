package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepResult;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * One round of the faults scenario: the fault-free phase and the faulty phase run back to back
 * on the same server, in the order {@link #faultyFirst} says. Rounds alternate the order so that
 * neither kind of phase always runs on the warmer JVM or the quieter moment of a shared machine.
 *
 * @param number      1-based round number
 * @param faultyFirst whether the faulty phase ran before the fault-free one (even rounds)
 * @param clean       the phase without faults
 * @param faulty      the phase with each chosen kind at the rate
 */
public record FaultsRound(int number, boolean faultyFirst, StepResult clean, StepResult faulty) {

    public FaultsRound {
        if (number < 1) {
            throw new IllegalArgumentException("round number must be >= 1, got " + number);
        }
        Objects.requireNonNull(clean, "clean");
        Objects.requireNonNull(faulty, "faulty");
    }

    /** Round {@code number}'s order: odd rounds clean then faulty, even rounds faulty then clean. */
    public static boolean faultyFirst(int number) {
        return number % 2 == 0;
    }

    /** The round's phases in the order they ran. */
    public List<StepResult> inOrder() {
        return faultyFirst ? List.of(faulty, clean) : List.of(clean, faulty);
    }

    /** {@code faulty req/s / clean req/s} of this round alone, 0 when the clean phase completed nothing. */
    public double ratio() {
        return clean.throughputRps() > 0 ? faulty.throughputRps() / clean.throughputRps() : 0;
    }

    /** The median of {@code value} over {@code rounds}: the middle one, or the mean of the middle two. */
    public static double median(List<FaultsRound> rounds, ToDoubleFunction<FaultsRound> value) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("median of no rounds");
        }
        double[] v = rounds.stream().mapToDouble(value).sorted().toArray();
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }
}
