package io.stagecoach.examples;

import java.io.PrintStream;

/** {@code ./stagecoach demo}: the README's main job. */
final class Demo {

    private Demo() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        out.println("stagecoach demo: nothing to show yet");
        return 0;
    }
}
