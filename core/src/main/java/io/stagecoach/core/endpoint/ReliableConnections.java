package io.stagecoach.core.endpoint;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections of a reliable-transport endpoint by peer address, and the peers whose Release
 * asked us to stay away for a while (Hold-Off, RFC 8323 §5.5). Thread-safe.
 */
final class ReliableConnections {

    /** Hold-Offs remembered at most; a Release beyond it is still obeyed on its connection. */
    static final int MAX_HOLD_OFFS = 10_000;

    private final ConcurrentHashMap<InetSocketAddress, ReliableConnection> byPeer = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, Long> holdOffUntil = new ConcurrentHashMap<>();

    ReliableConnection get(InetSocketAddress peer) {
        return byPeer.get(peer);
    }

    /** The connection with {@code peer}, created (not yet open) if there is none. */
    ReliableConnection getOrCreate(InetSocketAddress peer) {
        return byPeer.computeIfAbsent(peer, ReliableConnection::new);
    }

    /** Removes {@code c} if it is still the one of its peer; whether it was. */
    boolean remove(ReliableConnection c) {
        c.removed = true;
        return byPeer.remove(c.peer, c);
    }

    Collection<ReliableConnection> all() {
        return byPeer.values();
    }

    int size() {
        return byPeer.size();
    }

    /** {@code peer} asked not to be contacted before {@code untilNanos} (bounded: see {@link #MAX_HOLD_OFFS}). */
    void holdOff(InetSocketAddress peer, long untilNanos) {
        if (holdOffUntil.size() < MAX_HOLD_OFFS) {
            holdOffUntil.put(peer, untilNanos);
        }
    }

    /** Nanoseconds that {@code peer}'s Hold-Off still lasts at {@code nowNanos}, 0 when none (forgotten once passed). */
    long holdOffLeft(InetSocketAddress peer, long nowNanos) {
        Long until = holdOffUntil.get(peer);
        if (until == null) {
            return 0;
        }
        long left = until - nowNanos;
        if (left > 0) {
            return left;
        }
        holdOffUntil.remove(peer, until);
        return 0;
    }
}
