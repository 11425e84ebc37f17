package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeriodicSweepTest {

    @Test
    void sweepsAtFixedRateWithTheSchedulersTimeUntilStopped() {
        FakeScheduler scheduler = new FakeScheduler(500L);
        List<Long> calls = new ArrayList<>();
        PeriodicSweep sweep = new PeriodicSweep("test sweep", calls::add);
        sweep.start(scheduler, Duration.ofNanos(100));
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> sweep.start(scheduler, Duration.ofNanos(100)));
        assertEquals("test sweep already started", twice.getMessage());
        scheduler.advance(Duration.ofNanos(350));
        assertEquals(List.of(600L, 700L, 800L), calls);
        sweep.stop();
        sweep.stop();
        scheduler.advance(Duration.ofNanos(1000));
        assertEquals(3, calls.size(), "no run after stop");
        assertEquals(0, scheduler.pending());
        sweep.start(scheduler, Duration.ofNanos(100)); // restartable after stop
        assertEquals(1, scheduler.pending());
        sweep.stop();
    }

    @Test
    void failedSchedulingLeavesItStoppedAndRestartable() {
        Scheduler refusing = new Scheduler() {
            @Override
            public long nanoTime() {
                return 0;
            }

            @Override
            public Cancellable schedule(Runnable task, Duration delay) {
                throw new IllegalStateException("scheduler shut down");
            }

            @Override
            public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
                throw new IllegalStateException("scheduler shut down");
            }
        };
        PeriodicSweep sweep = new PeriodicSweep("test sweep", now -> { });
        assertThrows(IllegalStateException.class, () -> sweep.start(refusing, Duration.ofSeconds(1)));
        FakeScheduler scheduler = new FakeScheduler(0);
        sweep.start(scheduler, Duration.ofSeconds(1));
        assertEquals(1, scheduler.pending());
        sweep.stop();
        assertThrows(IllegalArgumentException.class, () -> sweep.start(scheduler, Duration.ofSeconds(-1)));
    }
}
