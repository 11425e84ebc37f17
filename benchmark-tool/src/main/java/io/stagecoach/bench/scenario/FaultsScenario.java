package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.load.StepListener;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepRunner;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.examples.faults.FaultInjector;
import io.stagecoach.examples.faults.FaultKind;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The fault test (after the ecoap thesis §5.4): does the server keep
 * serving while its parts fail?
 *
 * <ol>
 *   <li>The plugtest server starts in this JVM on loopback UDP with a {@link FaultInjector}
 *       whose rates are all 0 ({@link PlugtestTarget#start(FaultInjector)}).</li>
 *   <li>Warm-up: one fault-free phase, reported but not judged, so that round 1 does not run on
 *       a JVM only seconds old.</li>
 *   <li>{@link FaultsOptions#rounds()} rounds, each a fault-free phase and a faulty phase (each
 *       kind of {@link FaultsOptions#kinds()} at the rate) back to back; odd rounds run the clean
 *       phase first, even rounds the faulty one ({@link FaultsRound#faultyFirst(int)}), so the
 *       order and slow drifts of a shared machine fall on both kinds alike. Every phase is
 *       {@code clients} retransmitting CON GET clients on {@code /benchmark}.</li>
 *   <li>The load stops (the cool-down lets answers in flight arrive); the exchange store is
 *       polled every 10 ms until it is empty or the drain limit has passed. Exchanges a faulty
 *       phase leaked would still be open here: their lifetime (EXCHANGE_LIFETIME, 247 s) is far
 *       longer than a phase.</li>
 *   <li>The server is destroyed; {@code stagecoach-} threads that were not alive before the
 *       server started and are still alive 2 s later are reported.</li>
 * </ol>
 * {@link FaultsResult#judge} turns the measurements into verdicts. The clients retransmit
 * ({@link FaultsOptions#retransmit()}) because a datagram lost with a dying receive thread is
 * only ever recovered by the sender (RFC 7252 §4.2).
 */
public final class FaultsScenario {

    private static final long POLL_MILLIS = 10;
    private static final long THREAD_GRACE_MILLIS = 2_000;

    private final FaultsOptions options;
    private final PrintStream progress;
    private final StepClock clock;

    /** {@code progress} gets one line per phase (stderr in the CLI). */
    public FaultsScenario(FaultsOptions options, PrintStream progress) {
        this(options, progress, StepClock.system());
    }

    /** As {@link #FaultsScenario(FaultsOptions, PrintStream)}, the phases timed on {@code clock}. */
    public FaultsScenario(FaultsOptions options, PrintStream progress, StepClock clock) {
        this.options = options;
        this.progress = progress;
        this.clock = clock;
    }

    /** Runs the warm-up, the rounds and the checks; blocks for about (2 × rounds + 1) phases. */
    public FaultsResult run() throws IOException, InterruptedException {
        Set<Thread> before = stagecoachThreads();
        FaultInjector faults = FaultInjector.builder().seed(options.seed()).build();
        PlugtestTarget server = PlugtestTarget.start(faults);
        String target;
        StepResult warmup;
        List<FaultsRound> rounds = new ArrayList<>(options.rounds());
        FaultsResult.Drain drain;
        try {
            InetSocketAddress dest = server.address();
            String authority = "coap://" + dest.getAddress().getHostAddress() + ":" + dest.getPort();
            target = authority + " (in-process plugtest server)";
            StepRunner runner = new StepRunner(options.spec(CoapUri.parse(authority + "/benchmark")), dest, clock);

            say("warm-up: %d clients on /benchmark, no faults, not judged", options.clients());
            warmup = runner.run(options.clients(), StepListener.NONE);
            say("warm-up: %s", summary(warmup));
            for (int n = 1; n <= options.rounds(); n++) {
                boolean faultyFirst = FaultsRound.faultyFirst(n);
                StepResult first = phase(runner, faults, n, faultyFirst);
                StepResult second = phase(runner, faults, n, !faultyFirst);
                rounds.add(faultyFirst ? new FaultsRound(n, true, second, first)
                        : new FaultsRound(n, false, first, second));
            }
            drain = drain(server.endpoint());
            say("exchange store: %d open when the load stopped, %d after %d ms", drain.atStop(), drain.remaining(),
                    drain.millis());
        } finally {
            server.close();
        }
        // Read after close: destroy joins the receive, protocol and resource threads, so a fault
        // injected just before the rate went to 0 has moved its server counter too (a dying
        // receiver is restarted, a throwing handler counted, on those threads).
        FaultsResult.ServerCounts counts = new FaultsResult.ServerCounts(
                server.connectorCounters().receiverRestarts(), server.serverCounters().handlerErrors(),
                server.endpoint().counters().get(EndpointCounters.Counter.STACK_ERRORS),
                server.serverCounters().rejectedOverload());
        Map<FaultKind, Long> injected = new EnumMap<>(FaultKind.class);
        for (FaultKind k : FaultKind.values()) {
            injected.put(k, faults.injected(k));
        }
        List<String> left = threadsLeft(before);
        return FaultsResult.judge(target, options.rate(), options.kinds(), warmup, rounds, injected, counts, drain,
                left);
    }

    /** One phase of round {@code n}: with every chosen kind at the rate when {@code faulty}, else none. */
    private StepResult phase(StepRunner runner, FaultInjector faults, int n, boolean faulty)
            throws IOException, InterruptedException {
        String name = faulty ? "faulty" : "clean";
        if (faulty) {
            for (FaultKind k : options.kinds()) {
                faults.setRate(k, options.rate());
            }
            say("round %d/%d %s: %s at rate %s", n, options.rounds(), name, options.kinds(), options.rate());
        } else {
            say("round %d/%d %s: no faults", n, options.rounds(), name);
        }
        StepResult r;
        try {
            r = runner.run(options.clients(), StepListener.NONE);
        } finally {
            for (FaultKind k : FaultKind.values()) {
                faults.setRate(k, 0);
            }
        }
        say("round %d/%d %s: %s", n, options.rounds(), name, summary(r));
        return r;
    }

    /** Polls the exchange store until it is empty or the drain limit has passed. */
    private FaultsResult.Drain drain(CoapEndpoint endpoint) throws InterruptedException {
        long limit = options.drainLimit().toMillis();
        long start = System.nanoTime();
        int atStop = endpoint.openExchanges();
        int open = atStop;
        long elapsed = 0;
        while (open > 0 && elapsed < limit) {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            open = endpoint.openExchanges();
            elapsed = (System.nanoTime() - start) / 1_000_000;
        }
        return new FaultsResult.Drain(atStop, open, elapsed, limit);
    }

    private static Set<Thread> stagecoachThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(NamedThreadFactory.PREFIX)) {
                out.add(t);
            }
        }
        return out;
    }

    /** New {@code stagecoach-} threads still alive after a grace period of joins. */
    private static List<String> threadsLeft(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(THREAD_GRACE_MILLIS);
        List<String> left = new ArrayList<>();
        for (Thread t : stagecoachThreads()) {
            if (before.contains(t) || t == Thread.currentThread()) {
                continue;
            }
            long wait = (deadline - System.nanoTime()) / 1_000_000;
            if (wait > 0) {
                t.join(wait);
            }
            if (t.isAlive()) {
                left.add(t.getName());
            }
        }
        left.sort(null);
        return left;
    }

    private static String summary(StepResult r) {
        return String.format(Locale.ROOT, "%.0f req/s, %d completed, %d timeouts, %d retransmissions, "
                + "%d non-2.xx (%d 5.03)", r.throughputRps(), r.completed(), r.timeouts(), r.retransmissions(),
                r.errors(), r.unavailable());
    }

    private void say(String format, Object... args) {
        progress.println("faults: " + String.format(Locale.ROOT, format, args));
    }
}
