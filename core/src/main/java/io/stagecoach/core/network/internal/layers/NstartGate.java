package io.stagecoach.core.network.internal.layers;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * NSTART (RFC 7252 §4.7): at most {@code nstart} outstanding interactions per peer; further
 * requests wait, in order, in a per-peer queue.
 *
 * <p>A peer's entry exists only while it has an outstanding interaction or a waiting request, so
 * the map cannot grow with the number of peers ever contacted.
 */
final class NstartGate {

    private static final class Peer {
        int outstanding;
        final ArrayDeque<Runnable> waiting = new ArrayDeque<>(2);
    }

    private final int nstart;
    private final ConcurrentHashMap<InetSocketAddress, Peer> peers = new ConcurrentHashMap<>();

    NstartGate(int nstart) {
        if (nstart < 1) {
            throw new IllegalArgumentException("NSTART must be at least 1, got " + nstart);
        }
        this.nstart = nstart;
    }

    /**
     * Takes a slot for {@code peer}, or queues {@code start} to run when one frees up.
     *
     * @return {@code true} when the caller may start now (and must later {@link #release})
     */
    boolean acquireOrQueue(InetSocketAddress peer, Runnable start) {
        boolean[] now = new boolean[1];
        peers.compute(peer, (k, p) -> {
            if (p == null) {
                p = new Peer();
            }
            if (p.outstanding < nstart) {
                p.outstanding++;
                now[0] = true;
            } else {
                p.waiting.add(start);
            }
            return p;
        });
        return now[0];
    }

    /**
     * Frees a slot of {@code peer}; the next waiting request, if any, takes it over.
     *
     * @return the waiting request to start now (it owns the slot), or {@code null}
     */
    Runnable release(InetSocketAddress peer) {
        Runnable[] next = new Runnable[1];
        peers.computeIfPresent(peer, (k, p) -> {
            next[0] = p.waiting.poll();
            if (next[0] == null) {
                p.outstanding--;
            }
            return p.outstanding == 0 && p.waiting.isEmpty() ? null : p;
        });
        return next[0];
    }

    /** Peers with outstanding or waiting requests. */
    int peers() {
        return peers.size();
    }
}
