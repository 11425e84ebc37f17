package io.stagecoach.bench.cli;

import io.stagecoach.bench.beyond.BeyondRun;
import io.stagecoach.bench.c.NativeTool;
import io.stagecoach.bench.cf.CaliforniumServer;
import io.stagecoach.bench.dist.Slave;
import io.stagecoach.bench.echo.EchoServer;
import io.stagecoach.bench.load.NoAnswerException;
import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.cluster.ClusterMain;
import io.stagecoach.bench.scenario.ScenarioMain;
import io.stagecoach.bench.server.BenchServer;
import java.io.IOException;
import java.util.Arrays;

/**
 * {@code stagecoach bench [SUBCOMMAND] [options]}: CoAPBench after Lanter (2013) §6.1, with the
 * HdrHistogram latency of Shi (2018) §5.1.1. Subcommands: none (run here), {@code echo-server},
 * {@code cf-server} (Californium reference), {@code tcp-echo-server}, {@code sc-server} (minimal Stagecoach server),
 * {@code slave}, {@code master}, {@code compare}, {@code observe}, {@code blockwise}, {@code scenario}, {@code cluster}, {@code help}. Exit codes: 0 done, 2 bad
 * usage, 3 nothing answered in the first step, 1 any other failure.
 */
public final class CoapBench {

    private CoapBench() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs a subcommand and returns the exit code (no System.exit, for tests). */
    public static int run(String[] args) throws Exception {
        return run(args, StepClock.system());
    }

    /**
     * As {@link #run(String[])}, the phases of a local run's steps timed on {@code clock} (tests
     * pass a virtual one; the other subcommands run on the system clock).
     */
    public static int run(String[] args, StepClock clock) throws Exception {
        boolean help = args.length > 0 && (args[0].equals("-h") || args[0].equals("--help"));
        String sub = help ? "help" : args.length > 0 && !args[0].startsWith("-") ? args[0] : "run";
        String[] rest = sub.equals("run") ? args : Arrays.copyOfRange(args, 1, args.length);
        String command = "stagecoach bench " + String.join(" ", args);
        try {
            switch (sub) {
                case "help" -> {
                    System.out.print(BenchOptions.USAGE);
                    return 0;
                }
                case "echo-server" -> {
                    EchoServer.main(rest);
                    return 0;
                }
                case "c-echo" -> {
                    return NativeTool.echoMain(rest);
                }
                case "cf-server" -> {
                    CaliforniumServer.main(rest);
                    return 0;
                }
                case "tcp-echo-server" -> {
                    return TcpEchoRun.main(rest);
                }
                case "sc-server" -> {
                    BenchServer.main(rest);
                    return 0;
                }
                case "slave" -> {
                    return Slave.main(rest);
                }
                case "master" -> {
                    return MasterRun.main(BenchOptions.parse(rest), command);
                }
                case "scenario" -> {
                    return ScenarioMain.run(rest, command, System.out, System.err);
                }
                case "cluster" -> {
                    return ClusterMain.run(rest, System.out, System.err);
                }
                case "observe" -> {
                    return BeyondRun.observe(rest, command, System.out, System.err);
                }
                case "blockwise" -> {
                    return BeyondRun.blockwise(rest, command, System.out, System.err);
                }
                case "compare" -> {
                    return CompareRun.main(BenchOptions.parse(rest), command);
                }
                case "run" -> {
                    BenchOptions o = BenchOptions.parse(rest);
                    BenchReport r = LocalRun.run(o, o.load().uri().toString(), command, System.err, clock);
                    Outputs.write(r, o, System.out);
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown subcommand '" + sub + "'");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("stagecoach bench: " + e.getMessage());
            System.err.print(BenchOptions.USAGE);
            return 2;
        } catch (NoAnswerException e) {
            System.err.println("stagecoach bench: " + e.getMessage());
            return 3;
        } catch (IOException e) {
            System.err.println("stagecoach bench: " + e.getMessage());
            return 1;
        }
    }
}
