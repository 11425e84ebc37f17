package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.load.StepListener;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepRunner;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The isolation test of the ecoap thesis §5.3.2 (Table 5.1): does a
 * CPU-bound resource on its own bounded executor leave the rest of the server responsive?
 *
 * <ol>
 *   <li>Phase 1 (baseline): {@code clientsLight} closed-loop CON GET clients on
 *       {@code /benchmark} alone.</li>
 *   <li>Phase 2: the same light clients again, and at the same time {@code clientsHeavy} clients
 *       on {@code /fibonacci?n=N}: two {@link StepRunner}s with the same warm-up, window and
 *       cool-down, started together.</li>
 * </ol>
 *
 * Each group is measured on its own sockets and histogram; {@link IsolationResult#judge} turns
 * them into the verdicts. Without {@link IsolationOptions#base()} the plugtest server runs in
 * this JVM (so it shares the CPU with the load generator, as on one machine anyway).
 */
public final class IsolationScenario {

    private final IsolationOptions options;
    private final PrintStream progress;
    private final StepClock clock;

    /** {@code progress} gets one line per phase (stderr in the CLI). */
    public IsolationScenario(IsolationOptions options, PrintStream progress) {
        this(options, progress, StepClock.system());
    }

    /** As {@link #IsolationScenario(IsolationOptions, PrintStream)}, the phases timed on {@code clock}. */
    public IsolationScenario(IsolationOptions options, PrintStream progress, StepClock clock) {
        this.options = options;
        this.progress = progress;
        this.clock = clock;
    }

    /** Runs both phases; blocks for about 2 × (warm-up + duration + cool-down). */
    public IsolationResult run() throws IOException, InterruptedException {
        if (options.base() != null) {
            InetSocketAddress dest = options.base().resolve();
            return run(dest, options.base().toString());
        }
        try (PlugtestTarget server = PlugtestTarget.start()) {
            InetSocketAddress dest = server.address();
            return run(dest, "coap://" + dest.getAddress().getHostAddress() + ":" + dest.getPort()
                    + " (in-process plugtest server)");
        }
    }

    private IsolationResult run(InetSocketAddress dest, String target) throws IOException, InterruptedException {
        String authority = "coap://" + dest.getAddress().getHostAddress() + ":" + dest.getPort();
        if (dest.getAddress() instanceof Inet6Address) {
            authority = "coap://[" + dest.getAddress().getHostAddress() + "]:" + dest.getPort();
        }
        StepRunner light = new StepRunner(options.spec(CoapUri.parse(authority + "/benchmark")), dest, clock);
        StepRunner heavy = new StepRunner(options.spec(CoapUri.parse(authority + "/fibonacci?n=" + options.n())), dest,
                clock);

        say("phase 1: %d clients on /benchmark for %s", options.clientsLight(), options.duration());
        StepResult baseline = light.run(options.clientsLight(), StepListener.NONE);
        say("phase 1: %s", summary(baseline));

        say("phase 2: %d clients on /benchmark + %d on /fibonacci?n=%d for %s", options.clientsLight(),
                options.clientsHeavy(), options.n(), options.duration());
        NamedThreadFactory threads = new NamedThreadFactory("bench-scenario", true);
        CompletableFuture<StepResult> heavyResult = new CompletableFuture<>();
        Thread heavyThread = threads.newThread(() -> {
            try {
                heavyResult.complete(heavy.run(options.clientsHeavy(), StepListener.NONE));
            } catch (Throwable t) {
                heavyResult.completeExceptionally(t);
            }
        });
        heavyThread.start();
        StepResult lightResult;
        try {
            lightResult = light.run(options.clientsLight(), StepListener.NONE);
        } finally {
            // The heavy runner has the same timing, so it ends within a scan interval of the light one.
            heavyThread.join();
            threads.joinAll(Duration.ofSeconds(2));
        }
        StepResult heavyStep;
        try {
            heavyStep = heavyResult.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("heavy clients failed: " + e.getCause(), e.getCause());
        }
        say("phase 2 /benchmark: %s", summary(lightResult));
        say("phase 2 /fibonacci: %s", summary(heavyStep));
        return IsolationResult.judge(target, baseline, lightResult, heavyStep);
    }

    private static String summary(StepResult r) {
        return String.format(Locale.ROOT, "%.0f req/s, %d completed, %d timeouts, %d non-2.xx (%d 5.03)",
                r.throughputRps(), r.completed(), r.timeouts(), r.errors(), r.unavailable());
    }

    private void say(String format, Object... args) {
        progress.println("isolation: " + String.format(Locale.ROOT, format, args));
    }
}
