package io.stagecoach.elements.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Watches the whole test run for Stagecoach threads (names starting with {@code stagecoach-})
 * that outlive the test class that made them. After each top-level test class it joins such
 * threads for up to a grace period and records every one still alive, with the class to blame.
 *
 * <p>A listener cannot fail a build by itself: the JUnit Platform logs and swallows what
 * listeners throw. So a test class marked {@link RunLast} (sorted last by {@link RunLastOrderer},
 * set in each module's {@code junit-platform.properties}) asserts that {@link #leaks()} is empty,
 * and fails Surefire visibly, naming the leaking classes. At the end of the plan the listener
 * also prints the leaks to standard error, for runs that filtered the last class out.
 *
 * <p>Registered through {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}
 * in the test resources of core and examples.
 */
public final class ThreadLeakListener implements TestExecutionListener {

    private static final Duration GRACE = Duration.ofSeconds(5);
    private static final List<String> LEAKS = new ArrayList<>();

    /** What leaked so far: one line per test class, naming its surviving threads. */
    public static synchronized List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (!(id.getSource().orElse(null) instanceof ClassSource source) || !isTopLevel(id)) {
            return;
        }
        List<Thread> alive = survivors();
        if (!alive.isEmpty()) {
            String names = alive.stream().map(Thread::getName).sorted().collect(Collectors.joining(", "));
            synchronized (ThreadLeakListener.class) {
                LEAKS.add(source.getClassName() + " left " + names);
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        for (String leak : leaks()) {
            System.err.println("THREAD LEAK: " + leak);
        }
    }

    private static boolean isTopLevel(TestIdentifier id) {
        // [engine:…]/[class:…]; a nested class has a third segment and is checked with its outer class
        return id.getUniqueIdObject().getSegments().size() == 2;
    }

    private static List<Thread> survivors() {
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (Thread t : ThreadLeakCheck.liveThreads(ThreadLeakCheck.PREFIX)) {
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
        return ThreadLeakCheck.liveThreads(ThreadLeakCheck.PREFIX);
    }
}
