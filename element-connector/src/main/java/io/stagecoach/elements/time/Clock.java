package io.stagecoach.elements.time;

/**
 * The project's single source of monotonic time.
 *
 * <p>Every timing decision in Stagecoach (retransmission timeouts, deduplication expiry, observe
 * re-registration, link delays of the in-memory network) reads this clock instead of
 * {@link System#nanoTime()}, so that tests and simulations can run on a {@code VirtualClock} that
 * advances only when told.
 *
 * <p>Values are only meaningful as differences between two readings of the same clock, exactly
 * like {@link System#nanoTime()}.
 */
@FunctionalInterface
public interface Clock {

    /** Monotonic nanoseconds; only differences between two readings are meaningful. */
    long nanoTime();

    /** The clock of the running JVM, backed by {@link System#nanoTime()}. */
    static Clock system() {
        return System::nanoTime;
    }
}
