package io.stagecoach.core.network.internal.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.core.config.CongestionControlMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CongestionSettingsTest {

    @Test
    void defaultsAreRfc7252AndPaperValues() {
        CongestionSettings s = CongestionSettings.defaults();
        assertEquals(Duration.ofSeconds(2), s.ackTimeout());
        assertEquals(1.5, s.ackRandomFactor());
        assertEquals(Duration.ofSeconds(2), s.initialRto());
        assertEquals(Duration.ofSeconds(60), s.maxBackedOffRto());
        assertEquals(s, s.newBuilder().build());
    }

    @Test
    void invalidValuesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> CongestionSettings.builder().ackRandomFactor(0.99));
        assertThrows(IllegalArgumentException.class, () -> CongestionSettings.builder().ackRandomFactor(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> CongestionSettings.builder().ackTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> CongestionSettings.builder().peerStateCapacity(0));
        assertThrows(NullPointerException.class, () -> CongestionSettings.builder().initialRto(null));
        // 2 s x 1.5 = 3 s initial timeout cannot exceed a 2.5 s maximum.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CongestionSettings.builder().maxBackedOffRto(Duration.ofMillis(2500)).build());
        assertEquals(true, e.getMessage().contains("maxBackedOffRto"));
        assertThrows(IllegalArgumentException.class,
                () -> CongestionSettings.builder().maxBackedOffRto(Duration.ofDays(2)).build());
    }

    @Test
    void customRandomFactorChangesTheDefaultRange() {
        CongestionControl cc = CongestionControl.of(CongestionControlMode.DEFAULT,
                CongestionSettings.builder().ackTimeout(Duration.ofSeconds(1)).ackRandomFactor(2.0).build());
        // [1 s, 1 s x 2.0] = [1 s, 2 s]
        assertEquals(Fixed.sec(1), cc.newPeerState(0).startExchange(0, Fixed.LOW).timeoutNanos());
        assertEquals(Fixed.sec(2), cc.newPeerState(0).startExchange(0, Fixed.HIGH).timeoutNanos());
    }
}
