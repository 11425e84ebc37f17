package io.stagecoach.elements.dtls;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small synchronized map that forgets its least recently inserted or read entry beyond
 * {@code capacity}; holds resumable session states. Capacity 0 stores nothing.
 */
final class BoundedCache<K, V> {

    private final int capacity;
    private final LinkedHashMap<K, V> map;

    public BoundedCache(int capacity) {
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > BoundedCache.this.capacity;
            }
        };
    }

    public synchronized void put(K key, V value) {
        if (capacity > 0) {
            map.put(key, value);
        }
    }

    public synchronized V get(K key) {
        return map.get(key);
    }

    public synchronized void remove(K key) {
        map.remove(key);
    }

    public synchronized int size() {
        return map.size();
    }

    public synchronized void clear() {
        map.clear();
    }
}
