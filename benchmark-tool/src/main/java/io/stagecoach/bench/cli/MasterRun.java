package io.stagecoach.bench.cli;

import io.stagecoach.bench.dist.Master;
import io.stagecoach.bench.load.NoAnswerException;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.report.HlogOutput;
import io.stagecoach.bench.report.MachineInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** {@code stagecoach bench master ...}: the steps run by the slaves, merged and reported here. */
public final class MasterRun {

    private MasterRun() {
    }

    public static int main(BenchOptions o, String command) throws IOException, NoAnswerException {
        if (o.exec() != null) {
            return exec(o, System.out, System.err);
        }
        BenchReport r = run(o, command, System.err);
        Outputs.write(r, o, System.out);
        return 0;
    }

    /** Runs every step over the slaves; the report holds the merged results. */
    public static BenchReport run(BenchOptions o, String command, PrintStream log) throws IOException, NoAnswerException {
        List<StepResult> results = new ArrayList<>();
        HlogOutput hlog = o.hlog() == null ? null : new HlogOutput(o.hlog());
        try (Master m = Master.connect(o.slaves(), log)) {
            for (int i = 0; i < o.steps().size(); i++) {
                int c = o.steps().get(i);
                log.printf("[step %d/%d, %d clients over %d slaves] running%n", i + 1, o.steps().size(), c, m.alive());
                long startMs = System.currentTimeMillis() + o.startDelayMs() + o.load().warmup().toMillis();
                StepResult r = m.runStep(o.load(), c, o.startDelayMs());
                results.add(r);
                if (hlog != null) {
                    hlog.beginStep(i + 1, c);
                    hlog.writeWhole(r.latencyUs(), startMs, startMs + Math.round(r.durationS() * 1000));
                }
                if (i == 0) {
                    LocalRun.checkAnswered(r, o);
                }
            }
        } finally {
            if (hlog != null) {
                hlog.close();
            }
        }
        return new BenchReport(o.load().uri() + " (" + o.slaves().size() + " slaves)", command,
                MachineInfo.collect(), results);
    }

    /** Third-party mode: prints each slave's output and exit code; non-zero if any failed. */
    static int exec(BenchOptions o, PrintStream out, PrintStream log) throws IOException {
        try (Master m = Master.connect(o.slaves(), log)) {
            long timeoutMs = o.load().duration().toMillis() + o.load().timeout().toMillis();
            List<Master.ExecOutcome> results = m.exec(o.exec(), timeoutMs, o.startDelayMs());
            boolean ok = m.failures().isEmpty();
            for (Master.ExecOutcome r : results) {
                out.printf("=== slave %s: exit code %d%n%s%n", r.slave(), r.exitCode(), r.output());
                ok &= r.exitCode() == 0;
            }
            return ok ? 0 : 1;
        }
    }
}
