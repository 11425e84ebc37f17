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
 * verdicts: {@code isolation} ({@link IsolationScenario}), {@code faults}
 * ({@link FaultsScenario}) and {@code flood} ({@link FloodScenario}). Exit codes: 0 all verdicts
 * hold, 1 a verdict failed or the run failed, 2 bad usage.
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
        String name = args.length == 0 ? "" : args[0];
        if (!(name.equals("isolation") || name.equals("faults") || name.equals("flood"))) {
            throw new IllegalArgumentException(args.length == 0 ? "scenario needs a name: isolation, faults, flood"
                    : "unknown scenario '" + name + "' (known: isolation, faults, flood)");
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if (rest.length == 1 && (rest[0].equals("help") || rest[0].equals("--help"))) {
            out.print(switch (name) {
                case "isolation" -> IsolationOptions.USAGE;
                case "faults" -> FaultsOptions.USAGE;
                default -> FloodOptions.USAGE;
            });
            return 0;
        }
        if (name.equals("flood")) {
            return flood(rest, command, out, err, clock);
        }
        if (name.equals("faults")) {
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

    /** {@code scenario flood}: the flags, the run, the table on {@code out} and the JSON file. */
    static int flood(String[] args, String command, PrintStream out, PrintStream err, StepClock clock)
            throws IOException, InterruptedException {
        FloodOptions o = FloodOptions.parse(args);
        FloodResult r = new FloodScenario(o, err, clock).run();
        out.print(r.toText());
        if (o.json() != null) {
            Files.writeString(o.json(), JsonWriter.write(r.toJsonMap(command, MachineInfo.collect())));
        }
        return r.passed() ? 0 : 1;
    }
}
