package io.stagecoach.bench.load;

import io.stagecoach.elements.time.VirtualClock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A {@link StepClock} on a {@link VirtualClock}, for tests: every wait of the step's controller
 * (warm-up, each second of the measured window, cool-down) ends once the events the test asks
 * for have happened since the wait began; then virtual time jumps to the wait's deadline. A
 * window therefore holds the events the test needs however slowly a loaded machine runs them,
 * and lasts exactly its virtual length. The event loops and sockets stay in real time.
 *
 * <p>The events are looked for every 5 ms for at most {@link #LIMIT} of real time; if they have
 * not happened by then the wait throws an {@link AssertionError} naming them, which ends the run
 * and fails the test.
 */
public final class EventPacedClock implements StepClock {

    /** Generous: the events a test asks for take milliseconds on an idle machine. */
    public static final Duration LIMIT = Duration.ofSeconds(20);

    /** What one wait is to contain: made when the wait begins, so that it can count from there. */
    public interface Window {
        boolean reached();

        String describe();

        static Window of(String description, BooleanSupplier reached) {
            return new Window() {
                @Override
                public boolean reached() {
                    return reached.getAsBoolean();
                }

                @Override
                public String describe() {
                    return description;
                }
            };
        }

        /** At least {@code n} more of {@code counter} than when the wait began. */
        static Window atLeast(long n, String what, LongSupplier counter) {
            long base = counter.getAsLong();
            return of(n + " " + what + " (" + (counter.getAsLong() - base) + " so far)",
                    () -> counter.getAsLong() - base >= n);
        }
    }

    private final VirtualClock time = new VirtualClock();
    private final Supplier<Window> windows;
    private volatile int waits;

    /** @param windows called when a wait begins; its window says when the wait may end */
    public EventPacedClock(Supplier<Window> windows) {
        this.windows = Objects.requireNonNull(windows, "windows");
    }

    @Override
    public long nanoTime() {
        return time.nanoTime();
    }

    @Override
    public void sleepUntil(long deadlineNanos) throws InterruptedException {
        long rest = deadlineNanos - time.nanoTime();
        if (rest <= 0) {
            return;
        }
        Window w = windows.get();
        long end = System.nanoTime() + LIMIT.toNanos();
        while (!w.reached()) {
            if (System.nanoTime() - end >= 0) {
                throw new AssertionError("a step's wait did not see " + w.describe() + " within " + LIMIT);
            }
            Thread.sleep(5);
        }
        waits++;
        time.advance(Duration.ofNanos(rest));
    }

    /** Waits that ended so far (waits for a time already reached do not count). */
    public int waits() {
        return waits;
    }
}
