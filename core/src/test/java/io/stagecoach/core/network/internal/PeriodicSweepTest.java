package io.stagecoach.core.network.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.time.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeriodicSweepTest {

    @Test
    void sweepsAtFixedRateWithTheSchedulersTimeUntilStopped() {
        VirtualClock scheduler = new VirtualClock();
        List<Long> calls = new ArrayList<>();
        PeriodicSweep sweep = new PeriodicSweep("test sweep", calls::add);
        sweep.start(scheduler, Duration.ofNanos(100));
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> sweep.start(scheduler, Duration.ofNanos(100)));
        assertEquals("test sweep already started", twice.getMessage());
        long start = scheduler.nanoTime();
        scheduler.advance(Duration.ofNanos(350));
        assertEquals(List.of(start + 100, start + 200, start + 300), calls);
        sweep.stop();
        sweep.stop();
        scheduler.advance(Duration.ofNanos(1000));
        assertEquals(3, calls.size(), "no run after stop");
        assertEquals(0, scheduler.pendingTasks());
        sweep.start(scheduler, Duration.ofNanos(100)); // restartable after stop
        assertEquals(1, scheduler.pendingTasks());
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
        VirtualClock scheduler = new VirtualClock();
        sweep.start(scheduler, Duration.ofSeconds(1));
        assertEquals(1, scheduler.pendingTasks());
        sweep.stop();
        assertThrows(IllegalArgumentException.class, () -> sweep.start(scheduler, Duration.ofSeconds(-1)));
    }
}
