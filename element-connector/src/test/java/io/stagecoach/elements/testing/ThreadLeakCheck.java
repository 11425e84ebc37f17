package io.stagecoach.elements.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Asserts that no Stagecoach thread (name starting with {@code stagecoach-}) is alive. Threads
 * that are on their way out are joined, up to a timeout, so the check does not race with a
 * shutdown that has already been requested; nothing sleeps.
 *
 * <p>Shipped in element-connector's test-jar for the other modules' tests:
 * {@code ThreadLeakCheck.assertNoStagecoachThreads()} after closing what the test opened.
 */
public final class ThreadLeakCheck {

    public static final String PREFIX = "stagecoach-";
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

    private ThreadLeakCheck() {
    }

    /** Live threads whose name starts with {@code prefix}. */
    public static List<Thread> liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix) && t != Thread.currentThread())
                .collect(Collectors.toList());
    }

    public static void assertNoStagecoachThreads() {
        assertNoThreads(PREFIX, DEFAULT_GRACE);
    }

    /** Fails, listing the threads and their stacks, if any {@code prefix} thread outlives {@code grace}. */
    public static void assertNoThreads(String prefix, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread t : liveThreads(prefix)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                t.join(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Thread> left = liveThreads(prefix);
        if (!left.isEmpty()) {
            StringBuilder sb = new StringBuilder("threads left running: ");
            for (Thread t : left) {
                sb.append('\n').append(t.getName()).append(" ").append(t.getState());
                for (StackTraceElement e : t.getStackTrace()) {
                    sb.append("\n    at ").append(e);
                }
            }
            fail(sb.toString());
        }
    }
}
