package io.stagecoach.core.network.internal;

import io.stagecoach.core.network.ExchangeFailedException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * No message ID can be handed out now: either every MID of the peer was used within
 * EXCHANGE_LIFETIME (RFC 7252 §4.4 forbids reusing one earlier), or the provider already tracks
 * its maximum number of peers. The send must fail or wait; retrying later can succeed.
 */
public final class MidExhaustedException extends ExchangeFailedException {

    private static final long serialVersionUID = 1L;

    private final transient InetSocketAddress peer;

    private MidExhaustedException(InetSocketAddress peer, String message) {
        super(message);
        this.peer = peer;
    }

    static MidExhaustedException allUsed(InetSocketAddress peer, Duration lifetime) {
        long seconds = Math.max(1, lifetime.toSeconds());
        return new MidExhaustedException(peer, "no free message ID for " + peer + ": all 65536 used within"
                + " EXCHANGE_LIFETIME " + seconds + " s; at most ~" + (65_536 / seconds) + " messages/s per peer");
    }

    static MidExhaustedException tooManyPeers(InetSocketAddress peer, int maxPeers) {
        return new MidExhaustedException(peer, "no message ID for " + peer + ": already tracking the maximum of "
                + maxPeers + " peers with message IDs in use");
    }

    /** The peer that got no MID. */
    public InetSocketAddress peer() {
        return peer;
    }
}
