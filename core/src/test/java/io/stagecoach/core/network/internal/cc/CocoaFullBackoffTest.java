package io.stagecoach.core.network.internal.cc;

import static io.stagecoach.core.network.internal.cc.Fixed.HIGH;
import static io.stagecoach.core.network.internal.cc.Fixed.LOW;
import static io.stagecoach.core.network.internal.cc.Fixed.sec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.config.CongestionControlMode;
import org.junit.jupiter.api.Test;

/** CoCoA-FB1 / CoCoA-FB2 (Järvinen et al., ANRW '18, §4.2). All exchanges use lower-end dithering. */
class CocoaFullBackoffTest {

    private static PeerCongestionState peer(CongestionControlMode mode) {
        return CongestionControl.of(mode, CongestionSettings.defaults()).newPeerState(0);
    }

    /** Sent at 0, 2, 6 s (timeouts 2, 4, 8 s under RTO 2 s), ACK at 12 s: E_weak 18 s, RTO 6 s. */
    private static RetransmissionTimer twoRetransmissionsRtt12(PeerCongestionState peer) {
        RetransmissionTimer t = peer.startExchange(0, LOW);
        assertEquals(sec(4), t.onTimeout());
        assertEquals(sec(8), t.onTimeout());
        t.onSuccess(sec(12));
        return t;
    }

    @Test
    void plainCocoaRestartsFromTheUpdatedRto() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA);
        twoRetransmissionsRtt12(peer);
        assertEquals(0, peer.carriedTimeoutNanos());
        assertEquals(sec(6), peer.startExchange(sec(12), LOW).timeoutNanos());
    }

    @Test
    void fb1KeepsTheBackedOffTimerUntilACleanExchange() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_1);
        twoRetransmissionsRtt12(peer);
        // The 8 s timer was in force when the ACK came; RTO was updated to 6 s meanwhile.
        assertEquals(sec(8), peer.carriedTimeoutNanos());
        RetransmissionTimer next = peer.startExchange(sec(12), LOW);
        assertEquals(sec(8), next.timeoutNanos());
        // VBF from RTO 6 s (> 3 s): 1.5 -> 12 s.
        assertEquals(sec(12), next.onTimeout());
        next.onSuccess(sec(15)); // 1 retransmission, RTT 3 s: weak update, carried = 12 s
        assertEquals(sec(12), peer.carriedTimeoutNanos());

        RetransmissionTimer clean = peer.startExchange(sec(20), LOW);
        assertEquals(sec(12), clean.timeoutNanos());
        clean.onSuccess(sec(21));
        assertEquals(0, peer.carriedTimeoutNanos());
        // Next exchange uses the (dithered) overall RTO again.
        assertEquals(peer.rtoNanos(sec(21)), peer.startExchange(sec(21), LOW).timeoutNanos());
    }

    @Test
    void fb2BacksOffFromTheMaximumOfInitialTimeoutAndUpdatedRto() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_2);
        twoRetransmissionsRtt12(peer);
        // base = max(first timeout 2 s, updated RTO 6 s) = 6 s; VBF(6 s) = 1.5; two backoffs:
        // 6 * 1.5 = 9, 9 * 1.5 = 13.5 s (FB1 would carry 8 s).
        assertEquals(sec(13.5), peer.carriedTimeoutNanos());
        assertEquals(sec(13.5), peer.startExchange(sec(12), LOW).timeoutNanos());
    }

    @Test
    void fb2UsesUpdatedRtoWhenItExceedsTheInitialTimeout() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_2);
        RetransmissionTimer t = peer.startExchange(0, LOW); // 2 s, VBF 2
        t.onTimeout(); // 4 s
        t.onSuccess(sec(2.4)); // 1 retransmission, RTT 2.4 s
        // E_weak = 2.4 + 1.2 = 3.6 s; RTO = 0.25 * 3.6 + 0.75 * 2 = 2.4 s.
        assertEquals(sec(2.4), peer.rtoNanos(sec(2.4)));
        // base = max(2 s, 2.4 s) = 2.4 s; VBF(2.4 s) = 2; one backoff: 4.8 s (FB1 would carry 4 s).
        assertEquals(sec(4.8), peer.carriedTimeoutNanos());
    }

    @Test
    void fb2KeepsInitialTimeoutWhenItExceedsTheUpdatedRto() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_2);
        RetransmissionTimer t = peer.startExchange(0, HIGH); // 3 s (RTO 2 s x 1.5), VBF 2
        t.onTimeout(); // 6 s
        t.onSuccess(sec(3.4)); // 1 retransmission, RTT 3.4 s
        // E_weak = 3.4 + 1.7 = 5.1 s; RTO = 0.25 * 5.1 + 0.75 * 2 = 2.775 s.
        assertEquals(sec(2.775), peer.rtoNanos(sec(3.4)));
        // base = max(3 s, 2.775 s) = 3 s; VBF(3 s) = 2; one backoff: 6 s (not 2.775 * 2 = 5.55 s).
        assertEquals(sec(6), peer.carriedTimeoutNanos());
    }

    @Test
    void fb2WithoutRtoUpdateBehavesAsFb1() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_2);
        RetransmissionTimer t = peer.startExchange(0, LOW);
        t.onTimeout(); // 4
        t.onTimeout(); // 8
        t.onTimeout(); // 16
        t.onSuccess(sec(15)); // three retransmissions: no estimator update
        assertEquals(sec(2), peer.rtoNanos(sec(15)));
        assertEquals(sec(16), peer.carriedTimeoutNanos());
    }

    @Test
    void failureCarriesTheFinalExpiryBackedOffOnce() {
        PeerCongestionState peer = peer(CongestionControlMode.COCOA_FULL_BACKOFF_1);
        RetransmissionTimer t = peer.startExchange(0, LOW);
        for (int i = 0; i < 4; i++) {
            t.onTimeout(); // 4, 8, 16, 32
        }
        t.onFailure(sec(62)); // 32 * VBF 2 = 64, truncated at 60 s
        assertEquals(sec(60), peer.carriedTimeoutNanos());
    }
}
