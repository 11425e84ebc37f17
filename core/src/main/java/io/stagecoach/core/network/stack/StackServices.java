package io.stagecoach.core.network.stack;

import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.random.RandomGenerator;

/** What an endpoint lends the layers of its stack. */
public interface StackServices {

    /** The endpoint's clock and timer (virtual in tests). */
    Scheduler scheduler();

    /** The endpoint's configuration. */
    Configuration config();

    /** Randomness for timeouts (seeded in tests and simulations). */
    RandomGenerator random();

    /** The endpoint's counters. */
    EndpointCounters counters();

    /**
     * Runs {@code task} on the protocol stage, holding {@code exchange} (see
     * {@link Exchange#execute(Runnable)}). Timers use this to get back onto a protocol thread.
     */
    void execute(Exchange exchange, Runnable task);

    /**
     * Reports a request refused because {@code peer} went over a limit (block-wise body size or
     * transfers, observe relations per peer: see {@code RequestLimits}). The endpoint counts it as
     * {@code LIMIT_EXCEEDED} and logs it on the {@code io.stagecoach.ban} logger at most once a
     * minute per peer address; this default only counts.
     */
    default void limitExceeded(InetSocketAddress peer, String reason) {
        counters().increment(EndpointCounters.Counter.LIMIT_EXCEEDED);
    }
}
