package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepListener;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepRunner;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.faults.FaultInjector;
import io.stagecoach.core.network.faults.FaultKind;
import io.stagecoach.elements.NamedThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The fault test of issue 11 ("Faults", after the ecoap thesis §5.4): does the server keep
 * serving while its parts fail?
 *
 * <ol>
 *   <li>The plugtest server starts in this JVM on loopback UDP with a {@link FaultInjector}
 *       whose rates are all 0 ({@link PlugtestTarget#start(FaultInjector)}).</li>
 *   <li>Phase 1: {@code clients} retransmitting CON GET clients on {@code /benchmark}.</li>
 *   <li>Phase 2: the same, with each kind of {@link FaultsOptions#kinds()} set to the rate.</li>
 *   <li>The load stops (the cool-down lets answers in flight arrive); the exchange store is
 *       polled every 10 ms until it is empty or the drain limit has passed.</li>
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

    /** {@code progress} gets one line per phase (stderr in the CLI). */
    public FaultsScenario(FaultsOptions options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    /** Runs both phases and the checks; blocks for about 2 × (warm-up + duration + cool-down). */
    public FaultsResult run() throws IOException, InterruptedException {
        Set<Thread> before = stagecoachThreads();
        FaultInjector faults = FaultInjector.builder().seed(options.seed()).build();
        PlugtestTarget server = PlugtestTarget.start(faults);
        String target;
        StepResult baseline;
        StepResult faulted;
        FaultsResult.Drain drain;
        FaultsResult.ServerCounts counts;
        try {
            InetSocketAddress dest = server.address();
            String authority = "coap://" + dest.getAddress().getHostAddress() + ":" + dest.getPort();
            target = authority + " (in-process plugtest server)";
            StepRunner runner = new StepRunner(options.spec(CoapUri.parse(authority + "/benchmark")), dest);

            say("phase 1: %d clients on /benchmark, no faults, for %s", options.clients(), options.duration());
            baseline = runner.run(options.clients(), StepListener.NONE);
            say("phase 1: %s", summary(baseline));

            for (FaultKind k : options.kinds()) {
                faults.setRate(k, options.rate());
            }
            say("phase 2: faults %s at rate %s", options.kinds(), options.rate());
            try {
                faulted = runner.run(options.clients(), StepListener.NONE);
            } finally {
                for (FaultKind k : FaultKind.values()) {
                    faults.setRate(k, 0);
                }
            }
            say("phase 2: %s", summary(faulted));
            drain = drain(server.endpoint());
            say("exchange store: %d open when the load stopped, %d after %d ms", drain.atStop(), drain.remaining(),
                    drain.millis());
            counts = new FaultsResult.ServerCounts(server.connectorCounters().receiverRestarts(),
                    server.serverCounters().handlerErrors(),
                    server.endpoint().counters().get(EndpointCounters.Counter.STACK_ERRORS),
                    server.serverCounters().rejectedOverload());
        } finally {
            server.close();
        }
        Map<FaultKind, Long> injected = new EnumMap<>(FaultKind.class);
        for (FaultKind k : FaultKind.values()) {
            injected.put(k, faults.injected(k));
        }
        List<String> left = threadsLeft(before);
        return FaultsResult.judge(target, options.rate(), options.kinds(), baseline, faulted, injected, counts, drain,
                left);
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
        Set<Thread> out = new java.util.HashSet<>();
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
