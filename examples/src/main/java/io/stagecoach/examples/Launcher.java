package io.stagecoach.examples;

import io.stagecoach.core.Version;
import io.stagecoach.examples.cli.ClientCommand;
import io.stagecoach.examples.cli.ServerCommand;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * Entry point of the {@code ./stagecoach} launcher for the commands that live in this module.
 * ({@code bench} and {@code cc-sim} are dispatched to benchmark-tool by the script.)
 */
public final class Launcher {

    private Launcher() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the process exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String cmd = args.length == 0 ? "help" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        switch (cmd) {
            case "help":
            case "-h":
            case "--help":
                out.print(usage());
                return 0;
            case "version":
            case "--version":
                out.println("stagecoach " + Version.get() + " (Java " + Runtime.version() + ")");
                return 0;
            case "demo":
                return Demo.run(rest, out, err);
            case "server":
                return ServerCommand.run(rest, out, err);
            case "client":
                return ClientCommand.run(rest, System.in, out, err);
            default:
                err.println("stagecoach: unknown command '" + cmd + "'; try './stagecoach help'");
                return 2;
        }
    }

    static String usage() {
        return String.join("\n",
                "usage: ./stagecoach <command> [options]",
                "",
                "commands:",
                "  help      this text",
                "  version   the Stagecoach and Java versions",
                "  demo      start an example server in-process, run a scripted client tour, stop",
                "  server    the plugtest server in the foreground (./stagecoach server --help)",
                "  client    a coap-client-like command-line client (./stagecoach client --help)",
                "  bench     benchmarks (benchmark-tool)",
                "  cc-sim    congestion-control simulation (benchmark-tool)",
                "");
    }
}
