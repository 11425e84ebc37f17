package io.stagecoach.bench.scenario;

import java.util.Objects;

/**
 * One pass/fail line of a scenario.
 *
 * @param name   the requirement, e.g. {@code light timeouts in phase 2 == 0}
 * @param passed whether the measurement met it
 * @param detail the measured values the decision was made on
 */
public record Verdict(String name, boolean passed, String detail) {

    public Verdict {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(detail, "detail");
    }

    /** {@code PASS  name  (detail)}. */
    @Override
    public String toString() {
        return (passed ? "PASS  " : "FAIL  ") + name + "  (" + detail + ")";
    }
}
