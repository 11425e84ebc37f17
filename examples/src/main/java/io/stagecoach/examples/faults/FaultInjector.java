package io.stagecoach.examples.faults;

import io.stagecoach.core.network.stack.Layer;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.server.CoapServerBuilder;
import io.stagecoach.core.server.HandlerInterceptor;
import io.stagecoach.elements.Connector;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * Seeded fault injection for chaos tests (after the ecoap thesis §5.4): each
 * {@link FaultKind} fires with its own rate in [0, 1], drawn from one {@link SplittableRandom} so
 * that a run with the same seed and the same sequence of draws injects the same faults.
 *
 * <p>Off unless configured: {@link #off()} and a builder without rates never inject. Rates may be
 * changed while running ({@link #setRate}) so that a test can fail one request and serve the next.
 * The injector only decides; the hooks that act are decorators put in place through the
 * library's ordinary extension points, by {@link #installOn(CoapServerBuilder)} or one by one:
 * {@link #layer()} (LAYER_THROWS), {@link #executor(Executor)} (EXECUTOR_REJECTS),
 * {@link #connector(Connector)} (RECEIVER_DIES) and {@link #handlerInterceptor()}
 * (HANDLER_THROWS). A server without them runs no fault code at all. Thread-safe.
 */
public final class FaultInjector {

    private static final FaultInjector OFF = builder().build();

    private final SplittableRandom random;
    private final Map<FaultKind, Double> rates;
    private final Map<FaultKind, LongAdder> injected = new EnumMap<>(FaultKind.class);

    private FaultInjector(Builder b) {
        this.random = new SplittableRandom(b.seed);
        this.rates = new EnumMap<>(b.rates);
        for (FaultKind k : FaultKind.values()) {
            rates.putIfAbsent(k, 0.0);
            injected.put(k, new LongAdder());
        }
    }

    /** An injector that never injects. */
    public static FaultInjector off() {
        return OFF;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Draws once for {@code kind}: {@code true} (and counted) with the kind's current rate. */
    public boolean inject(FaultKind kind) {
        double rate;
        synchronized (this) {
            rate = rates.get(kind);
            if (rate <= 0) {
                return false; // no draw: an idle kind does not shift the others' sequence
            }
            if (rate < 1 && random.nextDouble() >= rate) {
                return false;
            }
        }
        injected.get(kind).increment();
        return true;
    }

    /** Changes the rate of {@code kind} for the draws that follow. */
    public synchronized void setRate(FaultKind kind, double rate) {
        if (this == OFF) {
            throw new IllegalStateException("the shared off() injector cannot be configured; build one");
        }
        rates.put(Objects.requireNonNull(kind, "kind"), checkRate(rate));
    }

    public synchronized double rate(FaultKind kind) {
        return rates.get(kind);
    }

    /** How many faults of {@code kind} were injected so far. */
    public long injected(FaultKind kind) {
        return injected.get(kind).sum();
    }

    /**
     * Installs every hook on the endpoints {@code server} creates and on its resource stage:
     * connectors wrapped ({@link #connector}), a layer named {@value #LAYER_NAME} directly above
     * the reliability layer ({@link #layer}), a handler interceptor ({@link #handlerInterceptor})
     * and the default resource executor replaced by {@link #executor} running handlers inline
     * (resources with an executor of their own keep it).
     */
    public CoapServerBuilder installOn(CoapServerBuilder server) {
        return server.configureEndpoints(b -> b.wrapConnector(this::connector))
                .layers(stack -> stack.addAbove(LayerStack.RELIABILITY, LAYER_NAME, layer()))
                .handlerInterceptor(handlerInterceptor())
                .resourceExecutor(executor(Runnable::run));
    }

    /** Name of the layer {@link #installOn} puts in the stack. */
    public static final String LAYER_NAME = "faults";

    /** A handler interceptor that throws {@link InjectedFault} before the handler at the HANDLER_THROWS rate. */
    public HandlerInterceptor handlerInterceptor() {
        return chain -> {
            if (inject(FaultKind.HANDLER_THROWS)) {
                throw new InjectedFault(FaultKind.HANDLER_THROWS);
            }
            chain.proceed();
        };
    }

    /** A layer that throws {@link InjectedFault} on receiveRequest at the LAYER_THROWS rate. */
    public Layer layer() {
        return new FaultyLayer(this);
    }

    /** Wraps {@code delegate}: rejects a task at the EXECUTOR_REJECTS rate, else runs it there. */
    public Executor executor(Executor delegate) {
        return new FaultyExecutor(this, delegate);
    }

    /** Wraps {@code delegate}: its receiver throws {@link InjectedError} at the RECEIVER_DIES rate. */
    public Connector connector(Connector delegate) {
        return new FaultyConnector(this, delegate);
    }

    @Override
    public synchronized String toString() {
        return "FaultInjector" + rates;
    }

    private static double checkRate(double rate) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("rate must be in [0, 1]: " + rate);
        }
        return rate;
    }

    /** Validating builder; every rate defaults to 0. */
    public static final class Builder {
        private long seed = 1;
        private final Map<FaultKind, Double> rates = new EnumMap<>(FaultKind.class);

        private Builder() {
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** @throws IllegalArgumentException unless {@code rate} is in [0, 1] */
        public Builder rate(FaultKind kind, double rate) {
            rates.put(Objects.requireNonNull(kind, "kind"), checkRate(rate));
            return this;
        }

        /** The same rate for every kind. */
        public Builder allRates(double rate) {
            for (FaultKind k : FaultKind.values()) {
                rate(k, rate);
            }
            return this;
        }

        public FaultInjector build() {
            return new FaultInjector(this);
        }
    }
}
