package io.stagecoach.core.network.internal.cc;

import static io.stagecoach.core.network.internal.cc.Fixed.HIGH;
import static io.stagecoach.core.network.internal.cc.Fixed.LOW;
import static io.stagecoach.core.network.internal.cc.Fixed.sec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.config.CongestionControlMode;
import org.junit.jupiter.api.Test;

/** Default-FB1 / Default-FB2 (Järvinen et al., ANRW '18, §4.2). */
class DefaultFullBackoffTest {

    private static PeerCongestionState peer(CongestionControlMode mode) {
        return CongestionControl.of(mode, CongestionSettings.defaults()).newPeerState(0);
    }

    /** Runs one exchange from {@code start}: {@code retransmissions} timeouts, then an ACK after {@code rtt}. */
    private static RetransmissionTimer exchange(PeerCongestionState peer, long start, int retransmissions, long rtt) {
        RetransmissionTimer t = peer.startExchange(start, LOW);
        for (int i = 0; i < retransmissions; i++) {
            t.onTimeout();
        }
        t.onSuccess(start + rtt);
        return t;
    }

    @Test
    void fb1KeepsBackedOffTimeoutUntilACleanExchange() {
        PeerCongestionState peer = peer(CongestionControlMode.DEFAULT_FULL_BACKOFF_1);
        RetransmissionTimer t1 = peer.startExchange(0, HIGH);
        assertEquals(sec(6), t1.onTimeout());
        assertEquals(sec(12), t1.onTimeout());
        t1.onSuccess(sec(20));
        // Exchange 1 ended with the 12 s timer (3 s doubled twice): the next exchange starts there.
        assertEquals(sec(12), peer.carriedTimeoutNanos());

        RetransmissionTimer t2 = peer.startExchange(sec(20), LOW);
        assertEquals(sec(12), t2.timeoutNanos());
        // "If the already backed off timer expires with the subsequent exchange, the RTO value is doubled as usual."
        assertEquals(sec(24), t2.onTimeout());
        t2.onSuccess(sec(40));

        RetransmissionTimer t3 = peer.startExchange(sec(40), LOW);
        assertEquals(sec(24), t3.timeoutNanos());
        t3.onSuccess(sec(41)); // clean exchange: revert to the initial RTO
        assertEquals(0, peer.carriedTimeoutNanos());
        assertEquals(sec(2), peer.startExchange(sec(41), LOW).timeoutNanos());
    }

    @Test
    void fb2HalvesCarriedTimeoutAfterEachCleanExchangeUntilBelowAckTimeout() {
        PeerCongestionState peer = peer(CongestionControlMode.DEFAULT_FULL_BACKOFF_2);
        RetransmissionTimer t = peer.startExchange(0, HIGH);
        t.onTimeout(); // 6
        t.onTimeout(); // 12
        t.onTimeout(); // 24
        t.onSuccess(sec(30));
        assertEquals(sec(24), peer.carriedTimeoutNanos());

        // Clean exchanges: 24 -> 12 -> 6 -> 3 (still >= ACK_TIMEOUT 2 s) -> 1.5 < 2 s: dropped.
        long[] expectedFirstTimeouts = {sec(24), sec(12), sec(6), sec(3)};
        long now = sec(30);
        for (long expected : expectedFirstTimeouts) {
            RetransmissionTimer clean = exchange(peer, now, 0, sec(1));
            assertEquals(expected, clean.firstTimeoutNanos());
            now += sec(1);
        }
        assertEquals(0, peer.carriedTimeoutNanos());
        assertEquals(sec(3), peer.startExchange(now, HIGH).timeoutNanos()); // fresh dithered initial timeout
    }

    @Test
    void fb2RetransmittedExchangeReplacesCarriedTimeout() {
        PeerCongestionState peer = peer(CongestionControlMode.DEFAULT_FULL_BACKOFF_2);
        exchange(peer, 0, 2, sec(7)); // 2 -> 4 -> 8
        assertEquals(sec(8), peer.carriedTimeoutNanos());
        exchange(peer, sec(10), 0, sec(1)); // halved
        assertEquals(sec(4), peer.carriedTimeoutNanos());
        exchange(peer, sec(20), 1, sec(5)); // starts at 4, backs off to 8
        assertEquals(sec(8), peer.carriedTimeoutNanos());
    }

    @Test
    void failureCarriesTheFinalExpiryBackedOffOnce() {
        PeerCongestionState peer = peer(CongestionControlMode.DEFAULT_FULL_BACKOFF_1);
        RetransmissionTimer t = peer.startExchange(0, LOW);
        for (int i = 0; i < 4; i++) {
            t.onTimeout(); // 4, 8, 16, 32
        }
        t.onFailure(sec(62)); // the 32 s timer expired once more: 64 s, truncated at 60 s
        assertEquals(sec(60), peer.carriedTimeoutNanos());
        assertEquals(sec(60), peer.startExchange(sec(62), LOW).timeoutNanos());
    }
}
