package io.stagecoach.elements.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/**
 * The check a module's {@link RunLast} test class runs: no test class of the run left a
 * {@code stagecoach-} thread behind ({@link ThreadLeakListener}), and none is alive now.
 */
public final class NoThreadLeftBehind {

    private NoThreadLeftBehind() {
    }

    public static void assertNoLeaks() {
        assertEquals(List.of(), ThreadLeakListener.leaks(),
                "test classes left stagecoach- threads running after they finished");
        ThreadLeakCheck.assertNoStagecoachThreads();
    }
}
