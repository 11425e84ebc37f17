package io.stagecoach.examples.cli;

import java.io.InputStream;
import java.io.PrintStream;

/**
 * {@code -s/--observe SECONDS}: registers as an observer (RFC 7641) and prints every notification
 * until SECONDS have passed. Needs the observe support of core, which this build does not have yet.
 */
final class ClientObserve {

    private ClientObserve() {
    }

    static int run(ClientOptions o, InputStream in, PrintStream out, PrintStream err) {
        err.println("stagecoach client: observe not available in this build");
        return 2;
    }
}
