package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.report.JsonWriter;
import io.stagecoach.bench.report.MachineInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.Arrays;

/**
 * {@code stagecoach bench scenario NAME [options]}: fixed test scenarios with pass/fail
 * verdicts: {@code isolation} ({@link IsolationScenario}) and {@code faults}
 * ({@link FaultsScenario}). Exit codes: 0 all verdicts hold, 1 a verdict failed or the run
 * failed, 2 bad usage.
 */
public final class ScenarioMain {

    private ScenarioMain() {
    }

    /** Runs the scenario named by {@code args[0]}; the table goes to {@code out}, progress to {@code err}. */
    public static int run(String[] args, String command, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        return run(args, command, out, err, StepClock.system());
    }

    /** As {@link #run(String[], String, PrintStream, PrintStream)}, the steps' phases timed on {@code clock}. */
    public static int run(String[] args, String command, PrintStream out, PrintStream err, StepClock clock)
            throws IOException, InterruptedException {
        if (args.length == 0 || !(args[0].equals("isolation") || args[0].equals("faults"))) {
            throw new IllegalArgumentException(args.length == 0 ? "scenario needs a name: isolation, faults"
                    : "unknown scenario '" + args[0] + "' (known: isolation, faults)");
        }
        boolean isolation = args[0].equals("isolation");
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if (rest.length == 1 && (rest[0].equals("help") || rest[0].equals("--help"))) {
            out.print(isolation ? IsolationOptions.USAGE : FaultsOptions.USAGE);
            return 0;
        }
        if (!isolation) {
            FaultsOptions o = FaultsOptions.parse(rest);
            FaultsResult r = new FaultsScenario(o, err, clock).run();
            out.print(r.toText());
            if (o.json() != null) {
                Files.writeString(o.json(), JsonWriter.write(r.toJsonMap(command, MachineInfo.collect())));
            }
            return r.passed() ? 0 : 1;
        }
        IsolationOptions o = IsolationOptions.parse(rest);
        IsolationResult r = new IsolationScenario(o, err, clock).run();
        out.print(r.toText());
        if (o.json() != null) {
            Files.writeString(o.json(), JsonWriter.write(r.toJsonMap(command, MachineInfo.collect())));
        }
        return r.passed() ? 0 : 1;
    }
}
