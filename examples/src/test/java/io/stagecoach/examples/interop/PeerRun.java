package io.stagecoach.examples.interop;

import io.stagecoach.core.interop.PeerProcess;
import java.time.Duration;
import java.util.List;

/** A peer client run to completion: exit status, output, and the description for assertion messages. */
record PeerRun(int exit, String stdout, String stderr, String describe) {

    /** Starts {@code command}, waits up to {@code deadline} for it to exit (else fails), always ends it. */
    static PeerRun of(List<String> command, Duration deadline) throws Exception {
        try (PeerProcess p = PeerProcess.start(command)) {
            int exit = p.awaitExit(deadline);
            return new PeerRun(exit, p.stdout(), p.stderr(), p.describe());
        }
    }
}
