package io.stagecoach.bench.ccsim;

import io.stagecoach.core.config.CongestionControlMode;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The congestion-control strategies compared by Järvinen et al. (ANRW '18, §3.3, §4.2), under the
 * names used on the command line and in the JSON report.
 */
public enum Strategy {
    DEFAULT("default", "Default", CongestionControlMode.DEFAULT),
    COCOA("cocoa", "CoCoA", CongestionControlMode.COCOA),
    DEFAULT_FB1("default-fb1", "Default FB1", CongestionControlMode.DEFAULT_FULL_BACKOFF_1),
    DEFAULT_FB2("default-fb2", "Default FB2", CongestionControlMode.DEFAULT_FULL_BACKOFF_2),
    COCOA_FB1("cocoa-fb1", "CoCoA FB1", CongestionControlMode.COCOA_FULL_BACKOFF_1),
    COCOA_FB2("cocoa-fb2", "CoCoA FB2", CongestionControlMode.COCOA_FULL_BACKOFF_2);

    private final String cliName;
    private final String label;
    private final CongestionControlMode mode;

    Strategy(String cliName, String label, CongestionControlMode mode) {
        this.cliName = cliName;
        this.label = label;
        this.mode = mode;
    }

    public String cliName() {
        return cliName;
    }

    /** Name as the paper writes it, for tables and figures. */
    public String label() {
        return label;
    }

    public CongestionControlMode mode() {
        return mode;
    }

    /** The full-backoff variant's base strategy (itself for DEFAULT and COCOA). */
    public Strategy base() {
        return mode.measuresRtt() ? COCOA : DEFAULT;
    }

    /** @throws IllegalArgumentException naming the accepted names */
    public static Strategy parse(String name) {
        for (Strategy s : values()) {
            if (s.cliName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown congestion control '" + name + "'; use one of "
                + Arrays.stream(values()).map(Strategy::cliName).collect(Collectors.joining(", ")));
    }
}
