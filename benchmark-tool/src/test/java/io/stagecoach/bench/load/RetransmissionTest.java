package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.bench.load.Retransmission.Action;
import io.stagecoach.core.coap.CoapUri;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The back-off schedule and the scan's decision, as pure functions of elapsed time. */
class RetransmissionTest {

    private static final long MS = 1_000_000L;

    @Test
    void retransmissionsAreDueAfterDoublingIntervalsFromTheFirstTransmission() {
        Retransmission r = Retransmission.of(Duration.ofMillis(10));
        // 10, 10 + 20, 30 + 40, 70 + 80 ms after the first transmission (RFC 7252 §4.2 doubling).
        assertEquals(10 * MS, r.dueAfter(1));
        assertEquals(30 * MS, r.dueAfter(2));
        assertEquals(70 * MS, r.dueAfter(3));
        assertEquals(150 * MS, r.dueAfter(4));
        assertThrows(IllegalArgumentException.class, () -> r.dueAfter(5), "MAX_RETRANSMIT is 4");
        assertThrows(IllegalArgumentException.class, () -> r.dueAfter(0));
    }

    @Test
    void decisionWaitsRetransmitsUpToFourTimesThenTimesOut() {
        Retransmission r = Retransmission.of(Duration.ofMillis(10));
        long timeout = 1_000 * MS;
        assertEquals(Action.WAIT, r.decide(9 * MS, 0, timeout));
        assertEquals(Action.RETRANSMIT, r.decide(10 * MS, 0, timeout));
        assertEquals(Action.WAIT, r.decide(29 * MS, 1, timeout), "second one due at 30 ms");
        assertEquals(Action.RETRANSMIT, r.decide(30 * MS, 1, timeout));
        // A late scan sends one retransmission per scan, never two at once.
        assertEquals(Action.RETRANSMIT, r.decide(200 * MS, 2, timeout));
        assertEquals(Action.RETRANSMIT, r.decide(150 * MS, 3, timeout));
        assertEquals(Action.WAIT, r.decide(900 * MS, 4, timeout), "four sent: wait for the answer or the timeout");
        assertEquals(Action.TIMEOUT, r.decide(1_000 * MS, 4, timeout));
        assertEquals(Action.TIMEOUT, r.decide(1_000 * MS, 0, timeout), "the timeout wins over a due retransmission");
    }

    @Test
    void offNeverRetransmits() {
        assertEquals(Action.WAIT, Retransmission.OFF.decide(999 * MS, 0, 1_000 * MS));
        assertEquals(Action.TIMEOUT, Retransmission.OFF.decide(1_000 * MS, 0, 1_000 * MS));
        assertEquals(Retransmission.OFF, Retransmission.of(Duration.ZERO));
    }

    @Test
    void scanRunsFourTimesPerInitialIntervalWithinOneToHundredMillis() {
        assertEquals(100 * MS, Retransmission.OFF.scanNanos(10_000 * MS), "10 s / 20, capped at 100 ms");
        assertEquals(10 * MS, Retransmission.OFF.scanNanos(200 * MS));
        assertEquals(5 * MS, Retransmission.of(Duration.ofMillis(20)).scanNanos(10_000 * MS));
        assertEquals(1 * MS, Retransmission.of(Duration.ofMillis(2)).scanNanos(10_000 * MS), "at least 1 ms");
    }

    @Test
    void loadSpecRejectsNegativeIntervalsAndRetransmittedNon() {
        LoadSpec con = LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1/benchmark"));
        assertEquals(Duration.ZERO, con.retransmit(), "off by default");
        assertEquals(Duration.ofMillis(50), con.withRetransmit(Duration.ofMillis(50)).retransmit());
        assertThrows(IllegalArgumentException.class, () -> con.withRetransmit(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> con.withRetransmit(Duration.ofMillis(50)).withRequest("GET", 0, false));
    }
}
