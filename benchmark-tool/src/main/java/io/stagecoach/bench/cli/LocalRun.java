package io.stagecoach.bench.cli;

import io.stagecoach.bench.c.CLoadRunner;
import io.stagecoach.bench.load.NoAnswerException;
import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.load.StepListener;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepRunner;
import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.report.HlogOutput;
import io.stagecoach.bench.report.MachineInfo;
import io.stagecoach.bench.report.Progress;
import io.stagecoach.bench.tcp.CoapTcpLoad;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/** Runs every step on this machine, one after the other, and collects a {@link BenchReport}. */
public final class LocalRun {

    private LocalRun() {
    }

    /**
     * @param name     label of the target in reports
     * @param command  the command line, recorded in the report
     * @param progress where live progress goes (stderr), ignored when the options say quiet
     * @throws NoAnswerException when the first step got neither a 2.xx nor an error answer
     */
    public static BenchReport run(BenchOptions o, String name, String command, PrintStream progress)
            throws IOException, InterruptedException, NoAnswerException {
        return run(o, name, command, progress, StepClock.system());
    }

    /**
     * As {@link #run(BenchOptions, String, String, PrintStream)}; with the C generator the CPU time
     * of process {@code serverPid} is read over each step's window (0: not watched).
     */
    public static BenchReport run(BenchOptions o, String name, String command, PrintStream progress, long serverPid)
            throws IOException, InterruptedException, NoAnswerException {
        if (o.cGenerator()) {
            return runC(o, name, command, progress, serverPid);
        }
        return run(o, name, command, progress, StepClock.system());
    }

    private static BenchReport runC(BenchOptions o, String name, String command, PrintStream progress,
            long serverPid) throws IOException, InterruptedException, NoAnswerException {
        if (o.load().uri().isReliableTransport()) {
            return runNative(o, name, command, progress, o.load().uri().resolve());
        }
        CLoadRunner runner = new CLoadRunner(o.load(), o.load().uri().resolve(),
                o.generator().equals("c") ? "sources" : "sockets", o.rate(), serverPid);
        List<StepResult> results = new ArrayList<>();
        for (int i = 0; i < o.steps().size(); i++) {
            StepResult r = runner.run(o.steps().get(i), o.quiet() ? null : progress);
            results.add(r);
            if (i == 0) {
                checkAnswered(r, o);
            }
        }
        return new BenchReport(name, command, MachineInfo.collect(), results);
    }

    /** As {@link #run(BenchOptions, String, String, PrintStream)}, the steps' phases timed on {@code clock}. */
    public static BenchReport run(BenchOptions o, String name, String command, PrintStream progress, StepClock clock)
            throws IOException, InterruptedException, NoAnswerException {
        if (o.cGenerator()) {
            return runC(o, name, command, progress, 0);
        }
        InetSocketAddress dest = o.load().uri().resolve();
        StepRunner runner = new StepRunner(o.load(), dest, clock);
        Progress live = new Progress(o.quiet() ? new PrintStream(OutputStream.nullOutputStream()) : progress,
                o.steps().size());
        HlogOutput hlog = o.hlog() == null ? null : new HlogOutput(o.hlog());
        List<StepResult> results = new ArrayList<>();
        try {
            for (int i = 0; i < o.steps().size(); i++) {
                int concurrency = o.steps().get(i);
                live.beginStep(i + 1);
                if (hlog != null) {
                    hlog.beginStep(i + 1, concurrency);
                }
                StepResult r = runner.run(concurrency, both(live, hlog));
                results.add(r);
                if (i == 0) {
                    checkAnswered(r, o);
                }
            }
        } finally {
            if (hlog != null) {
                hlog.close();
            }
        }
        return new BenchReport(name, command, MachineInfo.collect(), results);
    }

    /** Every step in the C generator for coap+tcp (no live progress: one line per step). */
    private static BenchReport runNative(BenchOptions o, String name, String command, PrintStream progress,
            InetSocketAddress dest) throws IOException, InterruptedException, NoAnswerException {
        CoapTcpLoad tool = CoapTcpLoad.build();
        List<StepResult> results = new ArrayList<>();
        for (int i = 0; i < o.steps().size(); i++) {
            int concurrency = o.steps().get(i);
            StepResult r = tool.run(o.load(), dest, concurrency, o.uringGenerator());
            if (!o.quiet()) {
                progress.printf(Locale.ROOT, "step %d/%d: %d connections, %.0f req/s (coap-tcp-load)%n", i + 1,
                        o.steps().size(), concurrency, r.throughputRps());
            }
            results.add(r);
            if (i == 0) {
                checkAnswered(r, o);
            }
        }
        return new BenchReport(name, command, MachineInfo.collect(), results);
    }

    static void checkAnswered(StepResult r, BenchOptions o) throws NoAnswerException {
        if (r.completed() == 0 && r.errors() == 0) {
            throw new NoAnswerException("no answer from " + o.load().uri() + " in the first step ("
                    + r.concurrency() + " clients, " + r.timeouts() + " timeouts): is the server running"
                    + " and does it serve this path?");
        }
    }

    private static StepListener both(StepListener a, StepListener b) {
        if (b == null) {
            return a;
        }
        return new StepListener() {
            @Override
            public void onProgress(int c, Phase phase, double elapsedS, double phaseS, double rps, long t, long e) {
                a.onProgress(c, phase, elapsedS, phaseS, rps, t, e);
                b.onProgress(c, phase, elapsedS, phaseS, rps, t, e);
            }

            @Override
            public void onInterval(int c, long startEpochMs, long endEpochMs, Histogram interval) {
                a.onInterval(c, startEpochMs, endEpochMs, interval);
                b.onInterval(c, startEpochMs, endEpochMs, interval);
            }
        };
    }
}
