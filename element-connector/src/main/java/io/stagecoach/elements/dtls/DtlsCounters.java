package io.stagecoach.elements.dtls;

import java.util.concurrent.atomic.LongAdder;

/**
 * DTLS event counts of one connector since it was built, beside the plaintext datagram counts of
 * its {@link io.stagecoach.elements.ConnectorCounters} (received = plaintext datagrams handed up,
 * sent = plaintext datagrams encrypted and handed to the socket). Same conventions:
 * {@link LongAdder}s, a {@link Snapshot} for a picture.
 */
public final class DtlsCounters {

    /** Counter values at one moment. */
    public record Snapshot(long handshakesStarted, long handshakesSucceeded, long handshakesFailed,
            long handshakesRejected, long helloVerifyRequestsSent, long recordsBadMac, long recordsReplayed,
            long datagramsMalformed, long datagramsNoSession, long sessionsEvicted, long sessionsExpired,
            long sessionsClosedByPeer, long sessionsResumed, long addressChanges, long pskLookups,
            long hellosDropped) {
        @Override
        public String toString() {
            return "handshakes started=" + handshakesStarted + " ok=" + handshakesSucceeded + " failed="
                    + handshakesFailed + " rejected=" + handshakesRejected + " resumed=" + sessionsResumed
                    + " hvr=" + helloVerifyRequestsSent + " badMac=" + recordsBadMac + " replayed=" + recordsReplayed
                    + " malformed=" + datagramsMalformed + " noSession=" + datagramsNoSession + " evicted="
                    + sessionsEvicted + " expired=" + sessionsExpired + " closedByPeer=" + sessionsClosedByPeer
                    + " addressChanges=" + addressChanges + " pskLookups=" + pskLookups + " hellosDropped="
                    + hellosDropped;
        }
    }

    final LongAdder handshakesStarted = new LongAdder();
    final LongAdder handshakesSucceeded = new LongAdder();
    final LongAdder handshakesFailed = new LongAdder();
    final LongAdder handshakesRejected = new LongAdder();
    final LongAdder helloVerifyRequestsSent = new LongAdder();
    final LongAdder recordsBadMac = new LongAdder();
    final LongAdder recordsReplayed = new LongAdder();
    final LongAdder datagramsMalformed = new LongAdder();
    final LongAdder datagramsNoSession = new LongAdder();
    final LongAdder sessionsEvicted = new LongAdder();
    final LongAdder sessionsExpired = new LongAdder();
    final LongAdder sessionsClosedByPeer = new LongAdder();
    final LongAdder sessionsResumed = new LongAdder();
    final LongAdder addressChanges = new LongAdder();
    final LongAdder pskLookups = new LongAdder();
    final LongAdder hellosDropped = new LongAdder();

    /** Handshakes admitted (server: after a valid cookie; client: on first send to a peer). */
    public long handshakesStarted() {
        return handshakesStarted.sum();
    }

    /** Handshakes that ended in an established session (full or abbreviated). */
    public long handshakesSucceeded() {
        return handshakesSucceeded.sum();
    }

    /** Admitted handshakes that failed, timed out or were cut short by stop(). */
    public long handshakesFailed() {
        return handshakesFailed.sum();
    }

    /** ClientHellos with a valid cookie refused because a handshake limit was reached. */
    public long handshakesRejected() {
        return handshakesRejected.sum();
    }

    /** HelloVerifyRequests sent: answers to ClientHellos without a valid cookie; no state kept. */
    public long helloVerifyRequestsSent() {
        return helloVerifyRequestsSent.sum();
    }

    /**
     * Records of an established session that failed authentication (bad MAC, or a malformed
     * record of the current epoch with a sequence number never seen): dropped silently
     * (RFC 6347 §4.1.2.7).
     */
    public long recordsBadMac() {
        return recordsBadMac.sum();
    }

    /** Records dropped as replays or of an old epoch (the replay window of RFC 6347 §4.1.2.6). */
    public long recordsReplayed() {
        return recordsReplayed.sum();
    }

    /**
     * Datagrams that are no DTLS record or whose handshake fragment announces an oversized
     * message (in plaintext, or once a handshake's encrypted record is decrypted), and encrypted
     * records shorter than the cipher suite allows.
     */
    public long datagramsMalformed() {
        return datagramsMalformed.sum();
    }

    /** Records for no known session or connection ID (and not a ClientHello). */
    public long datagramsNoSession() {
        return datagramsNoSession.sum();
    }

    /** Sessions dropped to make room under dtls.max-sessions (least recently used first). */
    public long sessionsEvicted() {
        return sessionsEvicted.sum();
    }

    /** Sessions dropped after dtls.session-idle-timeout without an authenticated record. */
    public long sessionsExpired() {
        return sessionsExpired.sum();
    }

    /** Sessions the peer closed (close_notify or a fatal alert). */
    public long sessionsClosedByPeer() {
        return sessionsClosedByPeer.sum();
    }

    /** Successful abbreviated handshakes (session resumption). */
    public long sessionsResumed() {
        return sessionsResumed.sum();
    }

    /** Peer address changes taken over by a session (RFC 9146 §6). */
    public long addressChanges() {
        return addressChanges.sum();
    }

    /** Asynchronous PSK lookups started. */
    public long pskLookups() {
        return pskLookups.sum();
    }

    /**
     * ClientHellos without a running handshake dropped unanswered because the hello budget
     * ({@code dtls.max-hello-rate}, {@code dtls.max-hello-rate-per-source}) was spent.
     */
    public long hellosDropped() {
        return hellosDropped.sum();
    }

    public Snapshot snapshot() {
        return new Snapshot(handshakesStarted(), handshakesSucceeded(), handshakesFailed(), handshakesRejected(),
                helloVerifyRequestsSent(), recordsBadMac(), recordsReplayed(), datagramsMalformed(),
                datagramsNoSession(), sessionsEvicted(), sessionsExpired(), sessionsClosedByPeer(), sessionsResumed(),
                addressChanges(), pskLookups(), hellosDropped());
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
