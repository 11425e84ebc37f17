package io.stagecoach.bench;

/** Entry point of {@code ./stagecoach bench} and {@code ./stagecoach cc-sim}. */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        String cmd = args.length == 0 ? "bench" : args[0];
        if (cmd.equals("cc-sim")) {
            io.stagecoach.bench.ccsim.CcSimMain.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        System.err.println("stagecoach " + cmd + ": not available in this build yet (see the open issues)");
        System.exit(2);
    }
}
