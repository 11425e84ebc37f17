package io.stagecoach.core.network;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.ConfigDocsMain;
import io.stagecoach.core.network.stack.BlockwiseLayer;
import io.stagecoach.core.network.stack.ExchangeCleanupLayer;
import io.stagecoach.core.network.stack.Layer;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.network.stack.ObserveLayer;
import io.stagecoach.core.network.stack.ReliabilityLayer;
import io.stagecoach.core.network.stack.TokenLayer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * Builds a {@link CoapEndpoint}: its connector (required), configuration, clock, protocol
 * executor, interceptors and extra layers.
 *
 * <p>The default stack, top to bottom, is {@value #CLEANUP}, {@value #OBSERVE}, {@value #BLOCKWISE},
 * {@value #TOKEN}, {@value #RELIABILITY}. Insert your own layer relative to a named one with
 * {@link #addLayerBefore} / {@link #addLayerAfter}.
 */
public final class CoapEndpointBuilder {

    public static final String CLEANUP = "exchange-cleanup";
    public static final String OBSERVE = "observe";
    public static final String BLOCKWISE = "blockwise";
    public static final String TOKEN = "token";
    public static final String RELIABILITY = "reliability";
    /** Name of the layer {@link #faults} inserts directly above {@link #RELIABILITY}. */
    public static final String FAULTS = "faults";

    Connector connector;
    Configuration config = Configuration.builder(ConfigDocsMain.ALL).build();
    Scheduler scheduler;
    AutoCloseable ownedScheduler;
    Executor executor;
    RandomGenerator random;
    final List<MessageInterceptor> interceptors = new ArrayList<>();
    private final List<Consumer<LayerStack.Builder>> layerEdits = new ArrayList<>();

    CoapEndpointBuilder() {
    }

    /** The network stage this endpoint sends and receives through (required). */
    public CoapEndpointBuilder connector(Connector connector) {
        this.connector = Objects.requireNonNull(connector, "connector");
        return this;
    }

    /** Configuration; defaults to every definition's default. */
    public CoapEndpointBuilder config(Configuration config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * The clock and timer (a {@code VirtualClock} in tests). Without one the endpoint creates a
     * real-time scheduler and closes it in {@link CoapEndpoint#destroy()}.
     */
    public CoapEndpointBuilder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * Runs the protocol stage on an executor the application owns (and shuts down) instead of a
     * pool of PROTOCOL_THREADS threads; {@code Runnable::run} runs it on the receive thread.
     */
    public CoapEndpointBuilder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Randomness for initial timeouts, MIDs and tokens; seed it for deterministic tests. Without
     * one, timeouts use {@code ThreadLocalRandom} and MIDs/tokens a {@link SecureRandom}. A given
     * generator must be used from one thread at a time (inline protocol stage).
     */
    public CoapEndpointBuilder random(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /** Adds an interceptor that sees every message sent and received. */
    public CoapEndpointBuilder interceptor(MessageInterceptor interceptor) {
        interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return this;
    }

    /**
     * Chaos testing (issue 11 "Faults"): wraps the connector so that its receive thread dies at the
     * RECEIVER_DIES rate, and inserts a layer above {@link #RELIABILITY} that throws on inbound
     * requests at the LAYER_THROWS rate (answered 5.00, see {@code Inbound}). Call after
     * {@link #connector}. Never use in production.
     */
    public CoapEndpointBuilder faults(io.stagecoach.core.network.faults.FaultInjector faults) {
        Objects.requireNonNull(faults, "faults");
        if (connector == null) {
            throw new IllegalStateException("set the connector before faults(..)");
        }
        this.connector = faults.connector(connector);
        return addLayerBefore(RELIABILITY, FAULTS, faults.layer());
    }

    /** Inserts {@code layer} directly above the layer named {@code existing}. */
    public CoapEndpointBuilder addLayerBefore(String existing, String name, Layer layer) {
        layerEdits.add(b -> b.addBefore(existing, name, layer));
        return this;
    }

    /** Inserts {@code layer} directly below the layer named {@code existing}. */
    public CoapEndpointBuilder addLayerAfter(String existing, String name, Layer layer) {
        layerEdits.add(b -> b.addAfter(existing, name, layer));
        return this;
    }

    public CoapEndpoint build() {
        if (connector == null) {
            throw new IllegalStateException("an endpoint needs a connector");
        }
        if (scheduler == null) {
            RealTimeScheduler timer = new RealTimeScheduler();
            scheduler = timer;
            ownedScheduler = timer;
        }
        return new CoapEndpoint(this);
    }

    /** The whole default stack, assembled in one place. */
    LayerStack.Builder layers(ExchangeStore store, RandomGenerator rnd) {
        TokenGenerator tokens = new TokenGenerator(config.get(CoapConfig.TOKEN_LENGTH),
                rnd != null ? rnd : new SecureRandom());
        LayerStack.Builder b = LayerStack.builder()
                .add(CLEANUP, new ExchangeCleanupLayer())
                .add(OBSERVE, new ObserveLayer(config, store))
                .add(BLOCKWISE, new BlockwiseLayer(config, store))
                .add(TOKEN, new TokenLayer(tokens, store))
                .add(RELIABILITY, new ReliabilityLayer(config));
        layerEdits.forEach(edit -> edit.accept(b));
        return b;
    }
}
