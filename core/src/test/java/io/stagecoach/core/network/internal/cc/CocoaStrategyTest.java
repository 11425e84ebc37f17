package io.stagecoach.core.network.internal.cc;

import static io.stagecoach.core.network.internal.cc.Fixed.HIGH;
import static io.stagecoach.core.network.internal.cc.Fixed.LOW;
import static io.stagecoach.core.network.internal.cc.Fixed.ms;
import static io.stagecoach.core.network.internal.cc.Fixed.sec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.config.CongestionControlMode;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** COCOA (draft-ietf-core-cocoa-03 §4). All exchanges use the lower-end dithering unless stated. */
class CocoaStrategyTest {

    private final CongestionControl cc = CongestionControl.of(CongestionControlMode.COCOA, CongestionSettings.defaults());

    private static RetransmissionTimer exchange(PeerCongestionState peer, long start, int retransmissions, long rtt) {
        RetransmissionTimer t = peer.startExchange(start, LOW);
        for (int i = 0; i < retransmissions; i++) {
            t.onTimeout();
        }
        t.onSuccess(start + rtt);
        return t;
    }

    @Test
    void blindEstimateIsTwoSecondsDitheredToThreeAtMost() {
        PeerCongestionState peer = cc.newPeerState(0);
        assertEquals(sec(2), peer.rtoNanos(0));
        assertEquals(sec(2), peer.startExchange(0, LOW).timeoutNanos());
        // §4.2.1: dithered between 1 x RTO and ACK_RANDOM_FACTOR x RTO = 3 s.
        RetransmissionTimer high = peer.startExchange(0, HIGH);
        assertEquals(sec(3), high.timeoutNanos());
        assertEquals(2.0, high.backoffFactor()); // RTO 2 s is in [1 s, 3 s]
    }

    @Test
    void strongUpdateFromCleanExchanges() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 0, ms(100));
        // First sample R = 0.1 s (RFC 6298 §2.2): SRTT = 0.1, RTTVAR = 0.05, E_strong = 0.1 + 4 * 0.05 = 0.3 s.
        // RTO = 0.5 * 0.3 + 0.5 * 2 = 1.15 s.
        assertEquals(ms(300), ((CocoaPeerState) peer).strongRtoNanos());
        assertEquals(ms(1150), peer.rtoNanos(ms(100)));

        exchange(peer, sec(1), 0, ms(100));
        // Second sample 0.1 s (§2.3): RTTVAR = 0.75 * 0.05 + 0.25 * |0.1 - 0.1| = 0.0375, SRTT = 0.1,
        // E_strong = 0.1 + 4 * 0.0375 = 0.25 s; RTO = 0.5 * 0.25 + 0.5 * 1.15 = 0.7 s.
        assertEquals(ms(250), ((CocoaPeerState) peer).strongRtoNanos());
        assertEquals(ms(700), peer.rtoNanos(ms(1100)));

        // RTO 0.7 s < 1 s: VBF 3 -> 0.7, 2.1, 6.3 s.
        RetransmissionTimer t = peer.startExchange(sec(2), LOW);
        assertEquals(ms(700), t.timeoutNanos());
        assertEquals(ms(2100), t.onTimeout());
        assertEquals(ms(6300), t.onTimeout());
    }

    @Test
    void measuredRtoIsDitheredUpToAckRandomFactor() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 0, ms(100)); // RTO 1.15 s (see above)
        SplittableRandom seeded = new SplittableRandom(3);
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 1000; i++) {
            long first = peer.startExchange(ms(100), seeded).firstTimeoutNanos();
            min = Math.min(min, first);
            max = Math.max(max, first);
        }
        // [1.15 s, 1.5 * 1.15 s = 1.725 s]
        assertTrue(min >= ms(1150) && max <= ms(1725), "range was [" + min + ", " + max + "]");
        assertTrue(max - min > ms(500), "dithering too narrow: [" + min + ", " + max + "]");
    }

    @Test
    void weakUpdateAfterOneRetransmission() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 1, sec(5)); // sent at 0 and 2 s, ACK at 5 s: RTT from the first transmission
        // E_weak = 5 + 1 * 2.5 = 7.5 s (K = 1); RTO = 0.25 * 7.5 + 0.75 * 2 = 3.375 s.
        assertEquals(sec(7.5), ((CocoaPeerState) peer).weakRtoNanos());
        assertEquals(sec(2), ((CocoaPeerState) peer).strongRtoNanos()); // untouched
        assertEquals(sec(3.375), peer.rtoNanos(sec(5)));
        // RTO > 3 s: VBF 1.5 -> 3.375 * 1.5 = 5.0625 s.
        RetransmissionTimer t = peer.startExchange(sec(5), LOW);
        assertEquals(sec(3.375), t.timeoutNanos());
        assertEquals(sec(5.0625), t.onTimeout());
    }

    @Test
    void weakUpdateAfterTwoRetransmissions() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 2, sec(10)); // sent at 0, 2, 6 s; ACK at 10 s
        // E_weak = 10 + 5 = 15 s; RTO = 0.25 * 15 + 0.75 * 2 = 5.25 s.
        assertEquals(sec(5.25), peer.rtoNanos(sec(10)));
    }

    @Test
    void noUpdateAfterThreeRetransmissionsOrFailure() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 3, sec(15)); // sent at 0, 2, 6, 14 s
        assertEquals(sec(2), peer.rtoNanos(sec(15)));
        assertEquals(sec(2), ((CocoaPeerState) peer).weakRtoNanos());
        assertEquals(sec(2), ((CocoaPeerState) peer).strongRtoNanos());

        RetransmissionTimer failed = peer.startExchange(sec(20), LOW);
        failed.onTimeout();
        failed.onFailure(sec(26));
        assertEquals(sec(2), peer.rtoNanos(sec(26)));
        assertEquals(0, peer.carriedTimeoutNanos()); // plain CoCoA carries nothing
    }

    @Test
    void variableBackoffFactorRanges() {
        assertEquals(3.0, CocoaPeerState.variableBackoffFactor(sec(1) - 1));
        assertEquals(2.0, CocoaPeerState.variableBackoffFactor(sec(1)));
        assertEquals(2.0, CocoaPeerState.variableBackoffFactor(sec(3)));
        assertEquals(1.5, CocoaPeerState.variableBackoffFactor(sec(3) + 1));
    }

    @Test
    void agingDoublesSmallRtoAfterSixteenRtosIdle() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 0, ms(100));
        exchange(peer, sec(1), 0, ms(100)); // RTO 0.7 s, last update at 1.1 s (see strongUpdateFromCleanExchanges)
        long lastUpdate = ms(1100);
        // 16 * 0.7 s = 11.2 s idle needed.
        assertEquals(ms(700), peer.rtoNanos(lastUpdate + ms(11200) - 1));
        assertEquals(ms(1400), peer.rtoNanos(lastUpdate + ms(11200)));
        // 1.4 s is in [1 s, 3 s]: no further aging, however long the idle time.
        assertEquals(ms(1400), peer.rtoNanos(lastUpdate + sec(3600)));
    }

    @Test
    void agingPullsLargeRtoTowardTwoSecondsCumulatively() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 2, sec(12)); // sent at 0, 2, 6 s; ACK at 12 s
        // E_weak = 12 + 6 = 18 s; RTO = 0.25 * 18 + 0.75 * 2 = 6 s, updated at 12 s.
        long t0 = sec(12);
        assertEquals(sec(6), peer.rtoNanos(t0));
        assertEquals(sec(6), peer.rtoNanos(t0 + sec(24) - 1));
        // After 4 * 6 = 24 s: RTO = 1 + 0.5 * 6 = 4 s.
        assertEquals(sec(4), peer.rtoNanos(t0 + sec(24)));
        // After a further 4 * 4 = 16 s: RTO = 1 + 2 = 3 s, which is not > 3 s: aging stops.
        assertEquals(sec(4), peer.rtoNanos(t0 + sec(40) - 1));
        assertEquals(sec(3), peer.rtoNanos(t0 + sec(40)));
        assertEquals(sec(3), peer.rtoNanos(t0 + sec(1000)));

        // Same steps computed in one go on a fresh peer read only once, long after the update.
        PeerCongestionState lazy = cc.newPeerState(0);
        exchange(lazy, 0, 2, sec(12));
        assertEquals(sec(3), lazy.rtoNanos(t0 + sec(1000)));
    }

    @Test
    void agingAppliesBeforeAnExchangeStarts() {
        PeerCongestionState peer = cc.newPeerState(0);
        exchange(peer, 0, 2, sec(12)); // RTO 6 s at 12 s
        RetransmissionTimer t = peer.startExchange(sec(36), LOW); // 24 s idle: aged to 4 s
        assertEquals(sec(4), t.timeoutNanos());
        assertEquals(1.5, t.backoffFactor());
    }
}
