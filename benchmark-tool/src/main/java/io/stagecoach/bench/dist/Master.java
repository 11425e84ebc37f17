package io.stagecoach.bench.dist;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.Steps;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The CoAPBench master (Lanter §6.1): splits each step's virtual clients over the slaves,
 * starts them at one instant (a start time converted into each slave's clock), waits for their
 * counters and histograms and merges them. A slave that breaks its connection, answers ERROR or
 * misses the deadline is reported on the log and left out of later steps; it is never waited
 * for beyond the step's length plus the request timeout plus {@link #GRACE_MS}.
 */
public final class Master implements AutoCloseable {

    static final long GRACE_MS = 30_000;

    private final List<SlaveLink> links;
    private final PrintStream log;
    private final List<String> failures = new ArrayList<>();
    private List<StepResult> lastParts = List.of();

    private Master(List<SlaveLink> links, PrintStream log) {
        this.links = links;
        this.log = log;
    }

    /** Connects to every slave; unreachable ones are reported; IOException if none answers. */
    public static Master connect(List<String> slaves, PrintStream log) throws IOException {
        if (slaves.isEmpty()) {
            throw new IllegalArgumentException("master needs --slaves HOST:PORT,...");
        }
        List<SlaveLink> links = new ArrayList<>();
        Master m = new Master(links, log);
        for (String s : slaves) {
            try {
                links.add(SlaveLink.connect(s.trim()));
            } catch (IOException e) {
                m.fail(e.getMessage());
            }
        }
        if (links.isEmpty()) {
            throw new IOException("no slave reachable: " + String.join("; ", m.failures));
        }
        return m;
    }

    /** What went wrong with slaves so far, one line each. */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** The slaves' own results of the last step, before merging. */
    public List<StepResult> lastParts() {
        return lastParts;
    }

    /** Slaves still taking part. */
    public int alive() {
        return (int) links.stream().filter(l -> !l.dead).count();
    }

    /**
     * Runs one step over the live slaves and returns the merged result; the start is
     * {@code startDelayMs} from now. IOException when no slave delivered a result.
     */
    public StepResult runStep(LoadSpec spec, int concurrency, long startDelayMs) throws IOException {
        List<SlaveLink> live = live();
        int[] shares = Steps.split(concurrency, live.size());
        long start = System.currentTimeMillis() + startDelayMs;
        List<SlaveLink> started = new ArrayList<>();
        for (int i = 0; i < live.size(); i++) {
            SlaveLink l = live.get(i);
            if (shares[i] == 0) {
                continue;
            }
            try {
                l.syncClock();
                l.send(ControlProtocol.run(start + l.offsetMs, shares[i], spec));
                started.add(l);
            } catch (IOException e) {
                kill(l, e);
            }
        }
        long deadline = start + spec.warmup().toMillis() + spec.duration().toMillis() + spec.cooldown().toMillis()
                + spec.timeout().toMillis() + GRACE_MS;
        List<StepResult> parts = new ArrayList<>();
        for (SlaveLink l : started) {
            try {
                ControlProtocol.Line r = l.read(deadline);
                StepResult part = ControlProtocol.stepResult(r);
                log.printf("slave %s: %d clients, %d completed, %.0f req/s, clock offset %+d ms (rtt %d ms), started %s ms late%n",
                        l.name, part.concurrency(), part.completed(), part.throughputRps(), l.offsetMs, l.rttMs,
                        r.args().get("late_ms"));
                parts.add(part);
            } catch (IOException | IllegalArgumentException e) {
                kill(l, e);
            }
        }
        if (parts.isEmpty()) {
            throw new IOException("no slave delivered a result for " + concurrency + " clients: "
                    + String.join("; ", failures));
        }
        lastParts = List.copyOf(parts);
        return StepResult.merge(parts);
    }

    /** Third-party mode outcome of one slave; exit code -1 = killed at the timeout. */
    public record ExecOutcome(String slave, int exitCode, String output) { }

    /** Runs {@code command} on every live slave at one synchronized start; failed slaves are reported. */
    public List<ExecOutcome> exec(String command, long timeoutMs, long startDelayMs) throws IOException {
        long start = System.currentTimeMillis() + startDelayMs;
        List<SlaveLink> started = new ArrayList<>();
        for (SlaveLink l : live()) {
            try {
                l.syncClock();
                l.send(ControlProtocol.line("EXEC", "start", start + l.offsetMs, "timeout_ms", timeoutMs, "cmd", command));
                started.add(l);
            } catch (IOException e) {
                kill(l, e);
            }
        }
        List<ExecOutcome> out = new ArrayList<>();
        for (SlaveLink l : started) {
            try {
                ControlProtocol.Line r = l.read(start + timeoutMs + GRACE_MS);
                String text = new String(Base64.getDecoder().decode(r.get("output")), StandardCharsets.UTF_8);
                out.add(new ExecOutcome(l.name, (int) r.getLong("exit"), text));
            } catch (IOException | IllegalArgumentException e) {
                kill(l, e);
            }
        }
        return out;
    }

    private List<SlaveLink> live() throws IOException {
        List<SlaveLink> live = links.stream().filter(l -> !l.dead).toList();
        if (live.isEmpty()) {
            throw new IOException("all slaves are gone: " + String.join("; ", failures));
        }
        return live;
    }

    private void kill(SlaveLink l, Exception e) {
        l.dead = true;
        l.close();
        fail(e.getMessage() != null && e.getMessage().startsWith("slave") ? e.getMessage()
                : "slave " + l.name + ": " + e.getMessage());
    }

    private void fail(String message) {
        failures.add(message);
        log.println("master: " + message + " (continuing without it)");
    }

    @Override
    public void close() {
        for (SlaveLink l : links) {
            l.close();
        }
    }
}
