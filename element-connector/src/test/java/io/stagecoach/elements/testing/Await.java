package io.stagecoach.elements.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits, with a deadline, for a condition that work the test does not drive will make true: a
 * real thread finishing a handler, a socket being closed by the kernel, another process starting
 * a child or printing a line. Protocol time never waits here; it runs on the virtual clock.
 *
 * <p>The condition is looked at again every {@link #INTERVAL} instead of in a busy spin: on a
 * loaded two-core machine a spinning test would take the CPU the awaited thread or process needs.
 * The caller asserts the outcome itself, so its message names what was awaited.
 *
 * <p>Shipped in element-connector's test-jar for the other modules' tests.
 */
public final class Await {

    /** How long a look waits before the next one. */
    public static final Duration INTERVAL = Duration.ofMillis(5);

    private Await() {
    }

    /**
     * Returns as soon as {@code condition} holds, or when {@code limit} has passed.
     *
     * @return whether the condition held (it is looked at once more at the deadline)
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public static boolean until(BooleanSupplier condition, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return condition.getAsBoolean();
            }
            Thread.sleep(INTERVAL.toMillis());
        }
        return true;
    }
}
