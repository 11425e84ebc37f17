package io.stagecoach.examples.plugtest;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.server.BoundedExecutors;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The plugtest resource set of shared/conformance/plugtest-resources.md (§3.1–3.19; discovery §4
 * is the server's own {@code /.well-known/core}) plus {@code /benchmark}, {@code /count},
 * {@code /fibonacci} and {@code /node} (the node ID, {@link Builder#nodeId}).
 *
 * <pre>{@code
 * Plugtest plugtest = Plugtest.builder().scheduler(scheduler).notifyPeriod(Duration.ofSeconds(5)).build();
 * plugtest.installOn(server);
 * ...
 * server.destroy();
 * plugtest.close();   // periodic changes, the fibonacci executor
 * }</pre>
 *
 * The periodic changes of the observable resources and the separate responses run on the given
 * {@link Scheduler}: a real-time one in {@code ./stagecoach server}, a virtual clock in tests.
 * The endpoints must send payloads over {@link #DEFAULT_BLOCK_SIZE} block-wise; see
 * {@link #blockSize(Configuration.Builder, int)}.
 */
public final class Plugtest implements AutoCloseable {

    /** The plugtest's block size {@code B}. */
    public static final int DEFAULT_BLOCK_SIZE = 64;
    /** The plugtest's notification period {@code P}. */
    public static final Duration DEFAULT_NOTIFY_PERIOD = Duration.ofSeconds(5);
    /** Waiting /fibonacci requests beyond the one running; more are answered 5.03. */
    public static final int FIBONACCI_QUEUE = 4;

    private final Scheduler scheduler;
    private final Duration notifyPeriod;
    private final int nodeId;
    private final ThreadPoolExecutor fibonacciExecutor;
    private final List<ClockResource> observables;
    private final List<CoapResource> resources = new ArrayList<>();
    private final List<Cancellable> timers = new ArrayList<>();
    private boolean closed;

    private Plugtest(Builder b) {
        this.scheduler = b.scheduler;
        this.notifyPeriod = b.notifyPeriod;
        this.nodeId = b.nodeId;
        this.fibonacciExecutor = BoundedExecutors.singleThread("fibonacci", FIBONACCI_QUEUE);
        this.observables = List.of(
                new ClockResource("obs", true, false, b.wallClock, b.notifyPeriod),
                new ClockResource("obs-non", false, false, b.wallClock, b.notifyPeriod),
                new ClockResource("obs-large", true, true, b.wallClock, b.notifyPeriod));
        resources.add(new TestResource());
        resources.add(StaticResources.seg1());
        resources.add(StaticResources.query());
        resources.add(new SeparateResource(scheduler));
        resources.add(StaticResources.large());
        resources.add(new LargeUpdateResource());
        resources.add(new LargeCreateResource());
        resources.add(new LargePostResource());
        resources.addAll(observables);
        resources.add(new ObsResetResource(observables, b.obsResetSecret));
        resources.add(StaticResources.locationQuery());
        resources.add(new MultiFormatResource());
        resources.addAll(List.of(StaticResources.links()));
        resources.add(StaticResources.path());
        resources.add(new ValidateResource());
        resources.add(new Create1Resource());
        resources.add(BenchResources.benchmark());
        resources.add(BenchResources.count());
        resources.add(BenchResources.fibonacci(fibonacciExecutor));
        resources.add(BenchResources.node(b.nodeId));
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Sets both the preferred block size and the maximum message size to {@code bytes}, so every
     * payload over it travels block-wise (docs/blockwise.md).
     */
    public static Configuration.Builder blockSize(Configuration.Builder config, int bytes) {
        return config.set(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE, bytes)
                .set(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE, bytes);
    }

    /** Adds every resource to {@code server} and starts the periodic changes. Once only. */
    public synchronized Plugtest installOn(CoapServer server) {
        if (closed || !timers.isEmpty()) {
            throw new IllegalStateException("a Plugtest is installed once and not after close()");
        }
        server.add(resources.toArray(new CoapResource[0]));
        for (ClockResource r : observables) {
            timers.add(scheduler.scheduleAtFixedRate(r::tick, notifyPeriod, notifyPeriod));
        }
        return this;
    }

    /** The top-level resources, in installation order. */
    public List<CoapResource> resources() {
        return List.copyOf(resources);
    }

    /** The bounded single-thread executor /fibonacci runs on (owned by this object). */
    ThreadPoolExecutor fibonacciExecutor() {
        return fibonacciExecutor;
    }

    public Duration notifyPeriod() {
        return notifyPeriod;
    }

    /** The node ID {@code /node} answers (0: none). */
    public int nodeId() {
        return nodeId;
    }

    /** Stops the periodic changes and the /fibonacci thread. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        timers.forEach(Cancellable::cancel);
        fibonacciExecutor.shutdownNow();
        try {
            fibonacciExecutor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Validates as it goes; {@link #scheduler} is required. */
    public static final class Builder {
        private Scheduler scheduler;
        private Duration notifyPeriod = DEFAULT_NOTIFY_PERIOD;
        private Clock wallClock = Clock.systemDefaultZone();
        private String obsResetSecret;
        private int nodeId;

        private Builder() {
        }

        /** Runs the periodic changes and the separate responses (required). */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** The period {@code P} of the observable resources' changes (default 5 s). */
        public Builder notifyPeriod(Duration period) {
            Objects.requireNonNull(period, "period");
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("notify period must be positive, got " + period);
            }
            this.notifyPeriod = period;
            return this;
        }

        /** The wall clock whose local time the observable resources show (default: the system's). */
        public Builder wallClock(Clock wallClock) {
            this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
            return this;
        }

        /**
         * The payload that {@code POST /obs-reset} must carry to drop every observation
         * (TD_COAP_OBS_04; the conformance document uses {@code sesame}). Not set (the default):
         * the reset is disabled and answers 4.03, since whoever knows the secret can cut off every
         * observer of the server.
         */
        public Builder obsResetSecret(String secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.isEmpty()) {
                throw new IllegalArgumentException("the obs-reset secret must not be empty");
            }
            this.obsResetSecret = secret;
            return this;
        }

        /**
         * The node ID that {@code GET /node} answers, 1..255, the same number that the node puts
         * first in the DTLS connection IDs it issues ({@code dtls.node-id}, docs/cluster.md); 0,
         * the default, means none.
         */
        public Builder nodeId(int id) {
            if (id < 0 || id > 255) {
                throw new IllegalArgumentException("node ID must be 0..255, got " + id);
            }
            this.nodeId = id;
            return this;
        }

        public Plugtest build() {
            if (scheduler == null) {
                throw new IllegalStateException("Plugtest needs a scheduler");
            }
            return new Plugtest(this);
        }
    }
}
