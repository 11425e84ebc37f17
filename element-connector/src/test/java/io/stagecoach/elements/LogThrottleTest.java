package io.stagecoach.elements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.elements.time.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

    private final VirtualClock clock = new VirtualClock();

    /**
     * Events at t = 0, 0, 0, 9.999 s, 10 s, 10 s, 25 s with a 10 s period: logged are the first
     * (0 held), the one at 10 s (3 held: two at 0 and the one at 9.999 s) and the one at 25 s (1 held).
     */
    @Test
    void oneEventPerPeriodGetsThroughWithTheCountHeldBack() {
        LogThrottle t = new LogThrottle(clock, Duration.ofSeconds(10));
        assertEquals(0, t.tryAcquire());
        assertEquals(-1, t.tryAcquire());
        assertEquals(-1, t.tryAcquire());
        clock.advance(Duration.ofMillis(9_999));
        assertEquals(-1, t.tryAcquire());
        clock.advance(Duration.ofMillis(1));
        assertEquals(3, t.tryAcquire());
        assertEquals(-1, t.tryAcquire());
        clock.advance(Duration.ofSeconds(15));
        assertEquals(1, t.tryAcquire());
    }

    @Test
    void zeroPeriodLogsEverythingAndNegativeIsRefused() {
        LogThrottle t = new LogThrottle(clock, Duration.ZERO);
        for (int i = 0; i < 5; i++) {
            assertEquals(0, t.tryAcquire());
        }
        assertThrows(IllegalArgumentException.class, () -> new LogThrottle(clock, Duration.ofSeconds(-1)));
    }
}
