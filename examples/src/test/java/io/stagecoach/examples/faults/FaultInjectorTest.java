package io.stagecoach.examples.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class FaultInjectorTest {

    @Test
    void offNeverInjectsAndCannotBeConfigured() {
        FaultInjector off = FaultInjector.off();
        for (FaultKind k : FaultKind.values()) {
            for (int i = 0; i < 1000; i++) {
                assertFalse(off.inject(k), k + " injected by off()");
            }
            assertEquals(0, off.injected(k));
        }
        assertThrows(IllegalStateException.class, () -> off.setRate(FaultKind.LAYER_THROWS, 1));
    }

    @Test
    void sameSeedSameFaultsAndTheRateIsRoughlyKept() {
        List<Boolean> a = draws(FaultInjector.builder().seed(42).rate(FaultKind.HANDLER_THROWS, 0.01).build());
        List<Boolean> b = draws(FaultInjector.builder().seed(42).rate(FaultKind.HANDLER_THROWS, 0.01).build());
        assertEquals(a, b, "same seed, same sequence");
        long hits = a.stream().filter(x -> x).count();
        assertTrue(hits > 50 && hits < 150, "1 % of 10000 draws injected, got " + hits);
    }

    @Test
    void badRatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> FaultInjector.builder().rate(FaultKind.HANDLER_THROWS, 1.5));
        assertThrows(IllegalArgumentException.class, () -> FaultInjector.builder().rate(FaultKind.HANDLER_THROWS, -0.1));
        assertThrows(IllegalArgumentException.class, () -> FaultInjector.builder().rate(FaultKind.HANDLER_THROWS, Double.NaN));
    }

    @Test
    void executorRejectsAtTheRateAndRunsOtherwise() {
        FaultInjector f = FaultInjector.builder().rate(FaultKind.EXECUTOR_REJECTS, 1).build();
        List<String> ran = new ArrayList<>();
        var ex = f.executor(Runnable::run);
        assertThrows(RejectedExecutionException.class, () -> ex.execute(() -> ran.add("a")));
        f.setRate(FaultKind.EXECUTOR_REJECTS, 0);
        ex.execute(() -> ran.add("b"));
        assertEquals(List.of("b"), ran);
        assertEquals(1, f.injected(FaultKind.EXECUTOR_REJECTS));
    }

    private static List<Boolean> draws(FaultInjector f) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            out.add(f.inject(FaultKind.HANDLER_THROWS));
        }
        return out;
    }
}
