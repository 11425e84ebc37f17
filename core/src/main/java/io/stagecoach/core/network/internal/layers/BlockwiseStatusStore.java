package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.network.internal.PeriodicSweep;
import io.stagecoach.core.network.internal.Source;
import io.stagecoach.elements.time.Scheduler;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server-side state of block-wise transfers: uploads being reassembled and representations
 * cached for Block2 follow-ups, keyed by {@link TransferKey}. Bounded three ways:
 * <ul>
 *   <li><b>count</b>: at most {@code maxPerSource} per source (IPv4 address, IPv6 /64: one host
 *       gains nothing by rotating ports) and {@code maxTotal} in all. A transfer beyond a cap
 *       evicts the least recently used one of that source, or of all sources: a full store never
 *       refuses a newcomer, and a flooding source evicts its own transfers first.</li>
 *   <li><b>bytes</b>: the bodies held (reassembled uploads as they grow, cached representations)
 *       count against {@code maxBytes}; beyond it the least recently used transfers go.</li>
 *   <li><b>time</b>: an entry idle for {@code lifetime} is dropped by one periodic sweep on the
 *       endpoint's scheduler (no timer per transfer, Lanter 2013 §5.4). The sweep runs only while
 *       the store holds something and stops itself when it is empty.</li>
 * </ul>
 * Thread-safe: one monitor; every operation is short except an eviction scan.
 */
final class BlockwiseStatusStore {

    /** One transfer's state, its size and when it was last used. */
    private static final class Entry {
        final Object status;
        long bytes;
        long lastUsedNanos;

        Entry(Object status, long bytes, long now) {
            this.status = status;
            this.bytes = bytes;
            this.lastUsedNanos = now;
        }
    }

    private final BlockwiseSettings settings;
    private final long lifetimeNanos;
    // access order: iteration starts at the least recently used entry
    private final LinkedHashMap<TransferKey, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<Source, Integer> perSource = new HashMap<>();
    private final PeriodicSweep sweep = new PeriodicSweep("blockwise sweep", this::sweep);
    private long bytes;
    private long evictions;
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
     * Stores {@code status} (holding {@code size} bytes) under {@code key}, replacing what was
     * there, and evicts the least recently used transfers of the same source, or of all, until
     * every bound holds again.
     *
     * @return {@code false} when {@code size} alone exceeds the byte budget (nothing stored)
     */
    synchronized boolean put(TransferKey key, Object status, long size, long now, Scheduler scheduler) {
        remove(key);
        if (size > settings.maxBytes()) {
            return false;
        }
        Source source = key.source();
        while (perSource.getOrDefault(source, 0) >= settings.maxPerSource()) {
            evictLeastRecentlyUsed(source);
        }
        while (entries.size() >= settings.maxTotal() || bytes + size > settings.maxBytes()) {
            evictLeastRecentlyUsed(null);
        }
        entries.put(key, new Entry(status, size, now));
        perSource.merge(source, 1, Integer::sum);
        bytes += size;
        if (!sweeping) {
            sweeping = true;
            sweep.start(scheduler, settings.sweepInterval());
        }
        return true;
    }

    /**
     * The transfer under {@code key} now holds {@code size} bytes (an upload grew); evicts other
     * transfers when the budget is exceeded.
     *
     * @return {@code false} when {@code size} alone exceeds the budget: the transfer was dropped
     */
    synchronized boolean resize(TransferKey key, long size) {
        Entry e = entries.get(key);
        if (e == null) {
            return false;
        }
        if (size > settings.maxBytes()) {
            remove(key);
            return false;
        }
        bytes += size - e.bytes;
        e.bytes = size;
        while (bytes > settings.maxBytes()) {
            evictLeastRecentlyUsedOtherThan(key);
        }
        return true;
    }

    /** Removes the entry under {@code key}, if any. */
    synchronized void remove(TransferKey key) {
        Entry e = entries.remove(key);
        if (e != null) {
            forget(key, e);
        }
    }

    /** Entries held now. */
    synchronized int size() {
        return entries.size();
    }

    /** Bytes of bodies held now. */
    synchronized long bytes() {
        return bytes;
    }

    /** Transfers evicted to make room so far. */
    synchronized long evictions() {
        return evictions;
    }

    /** Drops everything and stops the sweep (endpoint stopped). */
    synchronized void clear() {
        entries.clear();
        perSource.clear();
        bytes = 0;
        stopSweep();
    }

    /** Evicts the least recently used entry of {@code source}, or of all when {@code null}. */
    private void evictLeastRecentlyUsed(Source source) {
        for (Iterator<Map.Entry<TransferKey, Entry>> it = entries.entrySet().iterator(); it.hasNext();) {
            Map.Entry<TransferKey, Entry> e = it.next();
            if (source == null || e.getKey().source().equals(source)) {
                it.remove();
                forget(e.getKey(), e.getValue());
                evictions++;
                return;
            }
        }
        throw new IllegalStateException("nothing to evict for " + source); // counts and entries disagree
    }

    private void evictLeastRecentlyUsedOtherThan(TransferKey keep) {
        for (Iterator<Map.Entry<TransferKey, Entry>> it = entries.entrySet().iterator(); it.hasNext();) {
            Map.Entry<TransferKey, Entry> e = it.next();
            if (!e.getKey().equals(keep)) {
                it.remove();
                forget(e.getKey(), e.getValue());
                evictions++;
                return;
            }
        }
        throw new IllegalStateException("byte budget exceeded by " + keep + " alone");
    }

    private synchronized void sweep(long now) {
        for (Iterator<Map.Entry<TransferKey, Entry>> it = entries.entrySet().iterator(); it.hasNext();) {
            Map.Entry<TransferKey, Entry> e = it.next();
            if (now - e.getValue().lastUsedNanos > lifetimeNanos) {
                it.remove();
                forget(e.getKey(), e.getValue());
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

    private void forget(TransferKey key, Entry e) {
        bytes -= e.bytes;
        perSource.computeIfPresent(key.source(), (p, n) -> n <= 1 ? null : n - 1);
    }
}
