package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.network.internal.PeriodicSweep;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server-side state of block-wise transfers: uploads being reassembled and representations
 * cached for Block2 follow-ups, keyed by {@link TransferKey}. Bounded in two ways:
 * <ul>
 *   <li><b>count</b>: at most {@code maxPerPeer} per peer and {@code maxTotal} in all. An upload
 *       beyond a cap is refused (the caller answers 5.03); a download beyond it evicts the least
 *       recently used entry of that peer, or of all peers.</li>
 *   <li><b>time</b>: an entry idle for {@code lifetime} is dropped by one periodic sweep on the
 *       endpoint's scheduler (no timer per transfer, Lanter 2013 §5.4). The sweep runs only while
 *       the store holds something and stops itself when it is empty.</li>
 * </ul>
 * Thread-safe: one monitor; every operation is short.
 */
final class BlockwiseStatusStore {

    /** One transfer's state and when it was last used. */
    private static final class Entry {
        final Object status;
        long lastUsedNanos;

        Entry(Object status, long now) {
            this.status = status;
            this.lastUsedNanos = now;
        }
    }

    private final BlockwiseSettings settings;
    private final long lifetimeNanos;
    // access order: iteration starts at the least recently used entry
    private final LinkedHashMap<TransferKey, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<InetSocketAddress, Integer> perPeer = new HashMap<>();
    private final PeriodicSweep sweep = new PeriodicSweep("blockwise sweep", this::sweep);
    private boolean sweeping;

    BlockwiseStatusStore(BlockwiseSettings settings) {
        this.settings = settings;
        this.lifetimeNanos = settings.lifetime().toNanos();
    }

    /** The status under {@code key} if it has not expired, marked as used now; else {@code null}. */
    synchronized <T> T get(TransferKey key, Class<T> type, long now) {
        Entry e = entries.get(key);
        if (e == null || !type.isInstance(e.status)) {
            return null;
        }
        if (now - e.lastUsedNanos > lifetimeNanos) {
            remove(key);
            return null;
        }
        e.lastUsedNanos = now;
        return type.cast(e.status);
    }

    /**
     * Stores {@code status} under {@code key}, replacing what was there.
     *
     * @param evict whether to make room by evicting the least recently used entries; without it a
     *        full store refuses
     * @return {@code false} when refused
     */
    synchronized boolean put(TransferKey key, Object status, long now, boolean evict, Scheduler scheduler) {
        if (entries.remove(key) != null) {
            decrement(key.peer());
        }
        int peerCount = perPeer.getOrDefault(key.peer(), 0);
        if (peerCount >= settings.maxPerPeer() || entries.size() >= settings.maxTotal()) {
            if (!evict) {
                return false;
            }
            evictFor(key.peer(), peerCount >= settings.maxPerPeer());
        }
        entries.put(key, new Entry(status, now));
        perPeer.merge(key.peer(), 1, Integer::sum);
        if (!sweeping) {
            sweeping = true;
            sweep.start(scheduler, settings.sweepInterval());
        }
        return true;
    }

    /** Removes the entry under {@code key}, if any. */
    synchronized void remove(TransferKey key) {
        if (entries.remove(key) != null) {
            decrement(key.peer());
        }
    }

    /** Entries held now. */
    synchronized int size() {
        return entries.size();
    }

    /** Drops everything and stops the sweep (endpoint destroyed). */
    synchronized void clear() {
        entries.clear();
        perPeer.clear();
        stopSweep();
    }

    private void evictFor(InetSocketAddress peer, boolean samePeer) {
        for (Iterator<Map.Entry<TransferKey, Entry>> it = entries.entrySet().iterator(); it.hasNext();) {
            TransferKey k = it.next().getKey();
            if (!samePeer || k.peer().equals(peer)) {
                it.remove();
                decrement(k.peer());
                return;
            }
        }
    }

    private synchronized void sweep(long now) {
        for (Iterator<Map.Entry<TransferKey, Entry>> it = entries.entrySet().iterator(); it.hasNext();) {
            Map.Entry<TransferKey, Entry> e = it.next();
            if (now - e.getValue().lastUsedNanos > lifetimeNanos) {
                it.remove();
                decrement(e.getKey().peer());
            }
        }
        if (entries.isEmpty()) {
            stopSweep();
        }
    }

    private void stopSweep() {
        if (sweeping) {
            sweeping = false;
            sweep.stop();
        }
    }

    private void decrement(InetSocketAddress peer) {
        perPeer.computeIfPresent(peer, (p, n) -> n <= 1 ? null : n - 1);
    }
}
