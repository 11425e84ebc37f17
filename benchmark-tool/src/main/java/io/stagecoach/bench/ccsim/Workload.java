package io.stagecoach.bench.ccsim;

/** The client types of Järvinen et al., ANRW '18, §3.2. */
public enum Workload {
    /** Request/response pairs one at a time until the target succeeded; congestion state is kept. */
    CONTINUOUS("continuous"),
    /** The same pairs in random batches of 1..10; congestion state is reset after each batch. */
    RANDOM("random");

    private final String cliName;

    Workload(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** @throws IllegalArgumentException for anything but "continuous" or "random" */
    public static Workload parse(String name) {
        for (Workload w : values()) {
            if (w.cliName.equals(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "'; use continuous or random");
    }
}
