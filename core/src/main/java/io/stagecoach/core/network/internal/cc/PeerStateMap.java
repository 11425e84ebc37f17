package io.stagecoach.core.network.internal.cc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A bounded map from peer key (typically the peer's transport address) to per-peer state that
 * evicts the least recently used entry when full.
 *
 * <p>Thread-safe; every operation is O(1) and holds one lock briefly. Reads count as uses.
 * draft-ietf-core-cocoa-03 §4.3 asks to keep RTO state "as long as possible" and at least 255 s:
 * size the capacity for the number of peers contacted within that time.
 *
 * <p>The map is a {@code LinkedHashMap}: keys a remote party chooses must resist hash flooding
 * (a keyed hash and a total order, as {@code PeerKey} has), or colliding ones turn every
 * operation into a walk of all of them under the lock.
 *
 * @param <K> peer key; must have value semantics ({@code equals}/{@code hashCode})
 * @param <S> per-peer state
 */
public final class PeerStateMap<K, S> {

    private final int capacity;
    private final Object lock = new Object();
    private final LinkedHashMap<K, S> map;
    private long evictions;

    public PeerStateMap(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        // Access order makes iteration order LRU-first; removeEldestEntry keeps the bound.
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, S> eldest) {
                if (size() > PeerStateMap.this.capacity) {
                    evictions++;
                    return true;
                }
                return false;
            }
        };
    }

    /**
     * The state of {@code key}, created by {@code factory} if absent (the factory runs under the
     * map's lock, so keep it cheap, e.g. {@link CongestionControl#newPeerState(long)}). Marks the
     * entry as most recently used; may evict the least recently used one.
     */
    public S computeIfAbsent(K key, Function<? super K, ? extends S> factory) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(factory, "factory");
        synchronized (lock) {
            S state = map.get(key);
            if (state == null) {
                state = Objects.requireNonNull(factory.apply(key), "factory returned null");
                map.put(key, state);
            }
            return state;
        }
    }

    /** The state of {@code key} or null; marks it as most recently used. */
    public S get(K key) {
        Objects.requireNonNull(key, "key");
        synchronized (lock) {
            return map.get(key);
        }
    }

    /** Inserts or replaces; may evict the least recently used entry. */
    public S put(K key, S state) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        synchronized (lock) {
            return map.put(key, state);
        }
    }

    public S remove(K key) {
        Objects.requireNonNull(key, "key");
        synchronized (lock) {
            return map.remove(key);
        }
    }

    public int size() {
        synchronized (lock) {
            return map.size();
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Entries dropped so far because the map was full. */
    public long evictions() {
        synchronized (lock) {
            return evictions;
        }
    }

    public void clear() {
        synchronized (lock) {
            map.clear();
        }
    }
}
