package io.stagecoach.core.network.internal.cc;

import static io.stagecoach.core.network.internal.cc.Fixed.HIGH;
import static io.stagecoach.core.network.internal.cc.Fixed.LOW;
import static io.stagecoach.core.network.internal.cc.Fixed.sec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.config.CongestionControlMode;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DEFAULT: RFC 7252 §4.2 binary exponential backoff, no state across exchanges. */
class DefaultStrategyTest {

    private final CongestionControl cc = CongestionControl.of(CongestionControlMode.DEFAULT, CongestionSettings.defaults());

    @Test
    void initialTimeoutIsDitheredBetweenAckTimeoutAndAckTimeoutTimesRandomFactor() {
        PeerCongestionState peer = cc.newPeerState(0);
        SplittableRandom seeded = new SplittableRandom(42);
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 1000; i++) {
            RetransmissionTimer t = peer.startExchange(0, seeded);
            min = Math.min(min, t.firstTimeoutNanos());
            max = Math.max(max, t.firstTimeoutNanos());
            t.onSuccess(sec(0.1));
        }
        // RFC 7252 §4.2: [ACK_TIMEOUT, ACK_TIMEOUT * ACK_RANDOM_FACTOR] = [2 s, 3 s].
        assertTrue(min >= sec(2) && max <= sec(3), "range was [" + min + ", " + max + "]");
        // 1000 uniform draws cover most of the 1 s range (spread check, not a bound).
        assertTrue(max - min > sec(0.9), "dithering too narrow: [" + min + ", " + max + "]");
        assertEquals(sec(2), peer.startExchange(0, LOW).timeoutNanos());
        assertEquals(sec(3), peer.startExchange(0, HIGH).timeoutNanos());
    }

    @Test
    void sameSeedGivesSameSchedule() {
        long a = cc.newPeerState(0).startExchange(0, new SplittableRandom(7)).firstTimeoutNanos();
        long b = cc.newPeerState(0).startExchange(0, new SplittableRandom(7)).firstTimeoutNanos();
        assertEquals(a, b);
    }

    @Test
    void maxTransmitWaitAtUpperBoundIs93Seconds() {
        RetransmissionTimer t = cc.newPeerState(0).startExchange(0, HIGH);
        long total = t.timeoutNanos();
        // 3 s, then doubled for each of MAX_RETRANSMIT = 4 retransmissions: 6, 12, 24, 48.
        long[] expected = {sec(6), sec(12), sec(24), sec(48)};
        for (long e : expected) {
            assertEquals(e, t.onTimeout());
            total += t.timeoutNanos();
        }
        assertEquals(4, t.retransmissions());
        // RFC 7252 §4.8.2: MAX_TRANSMIT_WAIT = ACK_TIMEOUT * (2^(MAX_RETRANSMIT+1) - 1) * ACK_RANDOM_FACTOR = 2*31*1.5.
        assertEquals(sec(93), total);
    }

    @Test
    void backoffIsTruncatedAtMaxBackedOffRto() {
        RetransmissionTimer t = cc.newPeerState(0).startExchange(0, HIGH);
        // 3 -> 6 -> 12 -> 24 -> 48 -> min(96, 60) -> 60.
        long last = 0;
        for (int i = 0; i < 6; i++) {
            last = t.onTimeout();
        }
        assertEquals(sec(60), last);

        CongestionControl draftCap = CongestionControl.of(CongestionControlMode.DEFAULT,
                CongestionSettings.builder().maxBackedOffRto(Duration.ofSeconds(32)).build());
        RetransmissionTimer t32 = draftCap.newPeerState(0).startExchange(0, HIGH);
        t32.onTimeout(); // 6
        t32.onTimeout(); // 12
        t32.onTimeout(); // 24
        assertEquals(sec(32), t32.onTimeout()); // min(48, 32)
    }

    @Test
    void noStateIsCarriedAcrossExchanges() {
        PeerCongestionState peer = cc.newPeerState(0);
        RetransmissionTimer first = peer.startExchange(0, HIGH);
        first.onTimeout();
        first.onTimeout(); // 12 s in force
        first.onSuccess(sec(20));
        assertEquals(0, peer.carriedTimeoutNanos());
        assertEquals(sec(2), peer.startExchange(sec(20), LOW).timeoutNanos());

        RetransmissionTimer failed = peer.startExchange(sec(30), HIGH);
        failed.onTimeout();
        failed.onFailure(sec(40));
        assertEquals(sec(2), peer.startExchange(sec(40), LOW).timeoutNanos());
    }

    @Test
    void misuseIsRejected() {
        RetransmissionTimer t = cc.newPeerState(0).startExchange(sec(10), LOW);
        assertThrows(IllegalArgumentException.class, () -> t.onSuccess(sec(9)));
        t.onSuccess(sec(11));
        assertTrue(t.isFinished());
        assertThrows(IllegalStateException.class, () -> t.onSuccess(sec(12)));
        assertThrows(IllegalStateException.class, t::onTimeout);
        assertThrows(IllegalStateException.class, () -> t.onFailure(sec(12)));
        assertThrows(NullPointerException.class, () -> cc.newPeerState(0).startExchange(0, null));
    }
}
