package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.load.StepListener;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The flood test (docs/security.md, docs/benchmarks/security.md): one host attacks a Stagecoach
 * server over real UDP while innocent clients measure whether they are still served.
 *
 * <ol>
 *   <li>The plugtest server starts in a JVM of its own ({@link FloodTarget}: -Xmx64m, the
 *       default configuration, block size 1024, observable resources changing every 100 ms: the
 *       issue's set-up) on 127.0.0.1; or, with {@code --server-cmd}, any server a command starts
 *       ({@link ExternalFloodTarget}: a before/after comparison against an older build), which
 *       reports no counters.</li>
 *   <li>Spoofed requests ({@link SpoofedProbes#standard()}) go out from the victim's address and
 *       are never answered; what the server sends back is counted until the end.</li>
 *   <li>Innocent clients ({@link InnocentClients}) on 127.0.0.1 run for the whole scenario; each
 *       request counts for the phase in which it was first sent.</li>
 *   <li>Five phases, each timed on the {@link StepClock}: {@code before}; {@code unsolicited},
 *       attack (a), CON 2.05 responses {@code 40 45 MID} from many ports of the attacker's address
 *       as fast as one sending thread can ({@link FloodDatagrams#unsolicitedResponses()});
 *       {@code between}; {@code requests}, attack (b), CON GET, NON GET and CON POST from more
 *       ports than the per-source MID budget has peers ({@link FloodDatagrams#requestMix()});
 *       {@code after}. An attack also stops by itself after its length in real time. The
 *       server's counters are read at each phase's end.</li>
 *   <li>The innocents stop sending; once each phase's last request has an outcome, the server's
 *       heap is read after a full GC, the probes' counts are taken, and everything is closed.</li>
 * </ol>
 * {@link FloodResult#judge} turns the measurements into verdicts.
 */
public final class FloodScenario {

    private static final String THREAD_PREFIX = "bench-flood-";

    /** One phase: its name, and its attack or none. */
    private record Step(String name, String attack, DatagramFlood.Payload payload, int ports) {
    }

    private final FloodOptions options;
    private final PrintStream progress;
    private final StepClock clock;
    private volatile DatagramFlood current;
    private volatile long attackDone;

    /** {@code progress} gets a line at the start and the end of each phase (stderr in the CLI). */
    public FloodScenario(FloodOptions options, PrintStream progress) {
        this(options, progress, StepClock.system());
    }

    /** As {@link #FloodScenario(FloodOptions, PrintStream)}, the phases timed on {@code clock}. */
    public FloodScenario(FloodOptions options, PrintStream progress, StepClock clock) {
        this.options = options;
        this.progress = progress;
        this.clock = clock;
    }

    /** Datagrams the attacker has sent so far, over every attack: for a clock that paces on events. */
    public long attackDatagrams() {
        DatagramFlood f = current;
        return attackDone + (f == null ? 0 : f.datagrams());
    }

    /** Whether an attack is running now. */
    public boolean attacking() {
        return current != null;
    }

    /** Runs the whole scenario; blocks for about 3 × quiet + 2 × attack + the innocents' timeout. */
    public FloodResult run() throws IOException, InterruptedException {
        Set<Thread> before = floodThreads();
        List<Step> steps = steps();
        FloodServer server = options.serverCommand() == null
                ? FloodTarget.start(options.heap(), options.blockSize(), options.notifyMillis())
                : ExternalFloodTarget.start(options.serverCommand());
        String target = server.description();
        List<FloodPhase> phases = new ArrayList<>();
        List<SpoofedProbes.Result> probes;
        Map<String, Long> idle;
        Map<String, Long> end;
        boolean alive;
        long banLines;
        try {
            idle = server.statsAfterGc();
            if (server.hasStats()) {
                say("server up at %s, heap after GC %.1f MB of %.1f MB", target,
                        FloodResult.mb(idle.get("heap.used")), FloodResult.mb(idle.get("heap.max")));
            } else {
                say("server up at %s (no counters)", target);
            }
            SpoofedProbes spoofed = new SpoofedProbes(options.victim(), server.address(), SpoofedProbes.standard(),
                    options.watch().toNanos());
            try (InnocentClients innocents = new InnocentClients(server.address(), options.innocents(),
                    options.think().toNanos(), options.retransmit().toNanos(), options.timeout().toNanos(),
                    steps.size())) {
                List<DatagramFlood.Sent> sent = new ArrayList<>();
                List<Map<String, Long>> ends = new ArrayList<>();
                List<Map<String, Long>> deltas = new ArrayList<>();
                Map<String, Long> last = stats(server);
                for (int i = 0; i < steps.size(); i++) {
                    Step s = steps.get(i);
                    resetPeak(server);
                    innocents.phase(i);
                    sent.add(phase(s, server, innocents));
                    Map<String, Long> now = stats(server);
                    ends.add(now);
                    deltas.add(FloodPhase.delta(last, now));
                    last = now;
                }
                innocents.phase(-1);
                for (int i = 0; i < steps.size(); i++) {
                    Step s = steps.get(i);
                    phases.add(new FloodPhase(s.name(), s.attack(), sent.get(i), innocents.settle(i), ends.get(i),
                            deltas.get(i)));
                }
            } finally {
                probes = spoofed.finish();
            }
            end = server.isAlive() ? statsAfterGc(server) : Map.of();
            // Alive: still running, answering a CoAP ping from an innocent address and, when it has
            // them, its stats.
            alive = server.isAlive() && (!server.hasStats() || !end.isEmpty())
                    && CoapPing.answered(server.address(), options.timeout().toMillis(), server::isAlive);
            banLines = server.logLines("io.stagecoach.ban");
            if (!server.isAlive()) {
                say("the server process ended with exit code %s; its log ends with:%n  %s", server.exitCode(),
                        String.join("\n  ", server.logTail(20)));
            }
        } finally {
            server.close();
        }
        List<String> left = threadsLeft(before);
        return FloodResult.judge(target, phases, probes, idle, end, alive, banLines, left);
    }

    private List<Step> steps() {
        String host = options.attacker().getHostAddress();
        return List.of(
                new Step("before", "-", null, 0),
                new Step("unsolicited", "CON 2.05 '40 45 MID', " + options.unsolicitedPorts() + " ports of " + host,
                        FloodDatagrams.unsolicitedResponses(), options.unsolicitedPorts()),
                new Step("between", "-", null, 0),
                new Step("requests", "CON/NON GET, CON POST, " + options.requestPorts() + " ports of " + host,
                        FloodDatagrams.requestMix(), options.requestPorts()),
                new Step("after", "-", null, 0));
    }

    /** Waits out one phase on the clock, its flood running meanwhile; what the flood sent, or {@code null}. */
    private DatagramFlood.Sent phase(Step s, FloodServer server, InnocentClients innocents)
            throws IOException, InterruptedException {
        long length = (s.payload() == null ? options.quiet() : options.attack()).toNanos();
        long end = clock.nanoTime() + length;
        if (s.payload() == null) {
            say("phase '%s': no attack for %.1f s", s.name(), length / 1e9);
            clock.sleepUntil(end, StepListener.Phase.MEASURE, innocents::progress);
            return null;
        }
        say("phase '%s': %s for %.1f s", s.name(), s.attack(), length / 1e9);
        DatagramFlood flood = DatagramFlood.start(options.attacker(), server.address(), s.ports(),
                options.attackThreads(), length, s.payload());
        current = flood;
        DatagramFlood.Sent sent;
        try {
            clock.sleepUntil(end, StepListener.Phase.MEASURE, innocents::progress);
        } finally {
            sent = flood.stop();
            attackDone += sent.datagrams();
            current = null;
        }
        say("phase '%s': %d datagrams in %.2f s (%.0f/s) from %d ports", s.name(), sent.datagrams(), sent.seconds(),
                sent.rate(), sent.ports());
        return sent;
    }

    /** The server's stats, or an empty map once its process has ended (the verdicts then say so). */
    private static Map<String, Long> stats(FloodServer server) throws IOException {
        try {
            return server.stats();
        } catch (IOException e) {
            if (server.isAlive()) {
                throw e;
            }
            return Map.of();
        }
    }

    private static void resetPeak(FloodServer server) throws IOException {
        try {
            server.resetPeak();
        } catch (IOException e) {
            if (server.isAlive()) {
                throw e;
            }
        }
    }

    private static Map<String, Long> statsAfterGc(FloodServer server) {
        try {
            return server.statsAfterGc();
        } catch (IOException e) {
            return Map.of();
        }
    }

    private static Set<Thread> floodThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(THREAD_PREFIX)) {
                out.add(t);
            }
        }
        return out;
    }

    /** New {@code bench-flood-} threads still alive a second after the run. */
    private static List<String> threadsLeft(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        List<String> left = new ArrayList<>();
        for (Thread t : floodThreads()) {
            if (before.contains(t)) {
                continue;
            }
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (t.isAlive()) {
                left.add(t.getName());
            }
        }
        left.sort(null);
        return left;
    }

    private void say(String format, Object... args) {
        progress.println("flood: " + String.format(Locale.ROOT, format, args));
    }
}
