package io.stagecoach.elements.time;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RealTimeSchedulerTest {

    @Test
    void runsTasksOnNamedThreadsAndCloseLeavesNoThread() throws InterruptedException {
        AtomicBoolean nameOk = new AtomicBoolean();
        CountDownLatch ran = new CountDownLatch(1);
        CountDownLatch periodic = new CountDownLatch(3);
        try (RealTimeScheduler scheduler = new RealTimeScheduler(2)) {
            scheduler.schedule(() -> {
                nameOk.set(Thread.currentThread().getName().startsWith("stagecoach-timer-"));
                ran.countDown();
            }, Duration.ofMillis(1));
            // a throwing periodic task keeps running: three runs despite each throwing
            scheduler.scheduleAtFixedRate(() -> {
                periodic.countDown();
                throw new IllegalStateException("test: periodic failure");
            }, Duration.ZERO, Duration.ofMillis(1));
            // a far-away timer must not delay close()
            scheduler.schedule(() -> { }, Duration.ofDays(1));
            assertTrue(ran.await(10, TimeUnit.SECONDS), "one-shot task ran");
            assertTrue(periodic.await(10, TimeUnit.SECONDS), "periodic task survived its exceptions");
            assertTrue(nameOk.get(), "timer thread named stagecoach-timer-N");
        }
        ThreadLeakCheck.assertNoThreads("stagecoach-timer-", Duration.ofSeconds(1));
    }

    @Test
    void cancelledTaskDoesNotRun() throws InterruptedException {
        AtomicBoolean ran = new AtomicBoolean();
        try (RealTimeScheduler scheduler = new RealTimeScheduler()) {
            Cancellable c = scheduler.schedule(() -> ran.set(true), Duration.ofHours(1));
            assertTrue(c.cancel());
            assertFalse(c.cancel());
        }
        assertFalse(ran.get());
        ThreadLeakCheck.assertNoStagecoachThreads();
    }
}
