package io.stagecoach.elements.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class VirtualClockTest {

    private final VirtualClock clock = new VirtualClock();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());

    private long elapsedMs() {
        return (clock.nanoTime() - VirtualClock.START_NANOS) / 1_000_000;
    }

    @Test
    void runsTasksInDueOrderWithTiesInSchedulingOrder() {
        clock.schedule(() -> log.add("c@" + elapsedMs()), Duration.ofMillis(30));
        clock.schedule(() -> log.add("a@" + elapsedMs()), Duration.ofMillis(10));
        clock.schedule(() -> log.add("b1@" + elapsedMs()), Duration.ofMillis(20));
        clock.schedule(() -> log.add("b2@" + elapsedMs()), Duration.ofMillis(20));

        clock.advance(Duration.ofMillis(25));
        assertEquals(List.of("a@10", "b1@20", "b2@20"), log, "tasks due within 25 ms, each seeing its due time");
        assertEquals(25, elapsedMs(), "clock ends at the end of the window");
        assertEquals(1, clock.pendingTasks());

        clock.advance(Duration.ofMillis(5));
        assertEquals(List.of("a@10", "b1@20", "b2@20", "c@30"), log);
        assertEquals(0, clock.pendingTasks());
    }

    @Test
    void tasksScheduledByTasksRunInTheSameWindowWhenDue() {
        clock.schedule(() -> {
            log.add("outer@" + elapsedMs());
            clock.schedule(() -> log.add("inner@" + elapsedMs()), Duration.ofMillis(5));
            clock.schedule(() -> log.add("late@" + elapsedMs()), Duration.ofMillis(50));
        }, Duration.ofMillis(10));
        clock.schedule(() -> log.add("other@" + elapsedMs()), Duration.ofMillis(12));

        clock.advance(Duration.ofMillis(20));
        assertEquals(List.of("outer@10", "other@12", "inner@15"), log);
        assertEquals(1, clock.pendingTasks(), "the task due at 60 ms waits");
    }

    @Test
    void zeroDelayTasksRunOnRunDueWithoutMovingTime() {
        long before = clock.nanoTime();
        clock.schedule(() -> clock.schedule(() -> log.add("second"), Duration.ZERO), Duration.ZERO);
        assertTrue(log.isEmpty(), "nothing runs inside schedule()");
        clock.runDue();
        assertEquals(List.of("second"), log);
        assertEquals(before, clock.nanoTime());
    }

    @Test
    void cancelPreventsTheRunAndIsIdempotent() {
        Cancellable c = clock.schedule(() -> log.add("x"), Duration.ofMillis(1));
        assertTrue(c.cancel());
        assertFalse(c.cancel(), "second cancel reports nothing cancelled");
        clock.advance(Duration.ofMillis(2));
        assertTrue(log.isEmpty());
        assertEquals(0, clock.pendingTasks());
    }

    @Test
    void fixedRateRunsEachPeriodSurvivesExceptionsAndStopsWhenCancelled() {
        int[] runs = {0};
        Cancellable c = clock.scheduleAtFixedRate(() -> {
            runs[0]++;
            throw new IllegalStateException("test: periodic task failure");
        }, Duration.ofMillis(10), Duration.ofMillis(10));
        clock.advance(Duration.ofMillis(35));
        assertEquals(3, runs[0], "runs at 10, 20, 30 ms despite throwing");
        assertEquals(3, clock.failedTasks());
        c.cancel();
        clock.advance(Duration.ofMillis(100));
        assertEquals(3, runs[0]);
        assertEquals(0, clock.pendingTasks());
    }

    @Test
    void tasksScheduledFromAnotherThreadRunOnAdvance() throws InterruptedException {
        CountDownLatch scheduled = new CountDownLatch(100);
        Thread t = new Thread(() -> {
            for (int i = 0; i < 100; i++) {
                clock.schedule(() -> log.add("t"), Duration.ofMillis(1));
                scheduled.countDown();
            }
        });
        t.start();
        scheduled.await();
        t.join();
        clock.advance(Duration.ofMillis(1));
        assertEquals(100, log.size());
    }

    @Test
    void advanceFromATaskAndNegativeDurationsAreRejected() {
        clock.schedule(() -> clock.advance(Duration.ofMillis(1)), Duration.ZERO);
        clock.runDue();
        assertEquals(1, clock.failedTasks(), "nested advance threw IllegalStateException inside the task");
        assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> clock.scheduleAtFixedRate(() -> { }, Duration.ZERO, Duration.ZERO));
    }
}
