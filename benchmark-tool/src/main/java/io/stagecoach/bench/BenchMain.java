package io.stagecoach.bench;

import io.stagecoach.bench.ccsim.CcSimMain;
import io.stagecoach.bench.cli.CoapBench;
import java.util.Arrays;

/**
 * Entry point of {@code ./stagecoach bench} and {@code ./stagecoach cc-sim}; the launcher
 * passes the subcommand word first. A thin dispatcher only: each tool lives in its own package.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        // Two logback.xml on the class path (ours and the examples jar's) make logback print its
        // status to stdout; name ours explicitly, before anything creates a logger.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml");
        }
        String cmd = args.length == 0 ? "bench" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (cmd) {
            case "bench" -> CoapBench.main(rest);
            case "cc-sim" -> CcSimMain.main(rest);
            default -> {
                System.err.println("usage: stagecoach bench ... | stagecoach cc-sim ...");
                System.exit(2);
            }
        }
    }
}
