package io.stagecoach.bench.load;

import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.time.VirtualClock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A {@link StepClock} on virtual time, for tests: a wait of the step's controller in the warm-up
 * or the measured window ends once the events the test asks for have happened since the wait
 * began; then virtual time jumps to the wait's deadline. A window therefore holds the events the
 * test needs however slowly a loaded machine runs them, and lasts exactly its virtual length.
 * Cool-down pauses end at once (the clients have stopped; there is nothing to wait for). The
 * event loops and sockets stay in real time.
 *
 * <p>Each thread that waits on the clock has a {@link VirtualClock} of its own, so that runners
 * running side by side (the isolation scenario, slaves in one JVM) do not move each other's time.
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

        /** Every one of {@code windows}. */
        static Window all(Window... windows) {
            return new Window() {
                @Override
                public boolean reached() {
                    return java.util.Arrays.stream(windows).allMatch(Window::reached);
                }

                @Override
                public String describe() {
                    return String.join(" and ", java.util.Arrays.stream(windows).map(Window::describe).toList());
                }
            };
        }

        /** At least {@code n} more of {@code counter} than when the wait began. */
        static Window atLeast(long n, String what, LongSupplier counter) {
            long base = counter.getAsLong();
            return new Window() {
                @Override
                public boolean reached() {
                    return counter.getAsLong() - base >= n;
                }

                @Override
                public String describe() {
                    return n + " " + what + " (" + (counter.getAsLong() - base) + " came)";
                }
            };
        }
    }

    /** Opens the window of one wait, given the waiting step's live totals. */
    @FunctionalInterface
    public interface Windows {
        Window open(Supplier<StepProgress> progress);
    }

    private final ThreadLocal<VirtualClock> time = ThreadLocal.withInitial(VirtualClock::new);
    private final Windows windows;
    private final AtomicInteger waits = new AtomicInteger();

    private EventPacedClock(Windows windows) {
        this.windows = Objects.requireNonNull(windows, "windows");
    }

    /** Each wait ends once the window {@code windows} makes when it begins is reached (events at a peer). */
    public static EventPacedClock onEvents(Supplier<Window> windows) {
        return new EventPacedClock(progress -> windows.get());
    }

    /** Each wait ends once the window {@code windows} opens, given the waiting step's live totals, is reached. */
    public static EventPacedClock on(Windows windows) {
        return new EventPacedClock(windows);
    }

    /** Each wait ends once the waiting step's clients have received {@code n} more answers (any code). */
    public static EventPacedClock onAnswers(long n) {
        return new EventPacedClock(progress -> Window.atLeast(n, "answers to the step's clients",
                () -> progress.get().answered()));
    }

    @Override
    public long nanoTime() {
        return time.get().nanoTime();
    }

    @Override
    public void sleepUntil(long deadlineNanos, StepListener.Phase phase, Supplier<StepProgress> progress)
            throws InterruptedException {
        VirtualClock mine = time.get();
        long rest = deadlineNanos - mine.nanoTime();
        if (rest <= 0) {
            return;
        }
        if (phase != StepListener.Phase.COOLDOWN) {
            Window w = windows.open(progress);
            if (!Await.until(w::reached, LIMIT)) {
                throw new AssertionError("a step's " + phase + " wait did not see " + w.describe() + " within " + LIMIT);
            }
            waits.incrementAndGet();
        }
        mine.advance(Duration.ofNanos(rest));
    }

    /** Warm-up and measured waits that ended so far, on every thread. */
    public int waits() {
        return waits.get();
    }
}
