package io.stagecoach.core.network.stack;

import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
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
}
