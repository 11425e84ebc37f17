package io.stagecoach.core.network.internal.layers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Caps per source and in total, the byte budget, LRU eviction and the self-stopping sweep. */
class BlockwiseStatusStoreTest {

    private final VirtualClock clock = new VirtualClock();
    // 2 per source, 3 in all, 1,000 bytes in all
    private final BlockwiseSettings settings = new BlockwiseSettings(5, 1024, 8192, Duration.ofSeconds(60), 2, 3,
            1_000, Duration.ofSeconds(10));
    private final BlockwiseStatusStore store = new BlockwiseStatusStore(settings);

    private static TransferKey key(int host, int port, String target) {
        return new TransferKey(new InetSocketAddress("10.0.0." + host, port), false, Code.GET, target, "");
    }

    @Test
    void perSourceCapEvictsThatSourcesLeastRecentlyUsedWhateverItsPorts() {
        long now = clock.nanoTime();
        assertTrue(store.put(key(1, 1000, "a"), "A", 0, now, clock));
        assertTrue(store.put(key(1, 1001, "b"), "B", 0, now, clock));
        assertTrue(store.put(key(2, 1000, "x"), "X", 0, now, clock));
        store.get(key(1, 1000, "a"), String.class, now); // a is now the most recently used
        assertTrue(store.put(key(1, 1002, "c"), "C", 0, now, clock), "a third port of host 1");
        assertNull(store.get(key(1, 1001, "b"), String.class, now), "b, host 1's least recently used, was evicted");
        assertEquals("A", store.get(key(1, 1000, "a"), String.class, now));
        assertEquals("X", store.get(key(2, 1000, "x"), String.class, now), "another host is untouched");
        assertEquals(1, store.evictions());
    }

    @Test
    void totalCapEvictsTheOldestOfAll() {
        long now = clock.nanoTime();
        store.put(key(1, 1, "a"), "A", 0, now, clock);
        store.put(key(2, 1, "a"), "B", 0, now, clock);
        store.put(key(3, 1, "a"), "C", 0, now, clock);
        assertTrue(store.put(key(4, 1, "a"), "D", 0, now, clock), "a full store takes the newcomer");
        assertEquals(3, store.size());
        assertNull(store.get(key(1, 1, "a"), String.class, now), "the oldest entry of any source went");
    }

    @Test
    void bytesCountAgainstTheBudgetAndAGrowingUploadEvictsOthers() {
        long now = clock.nanoTime();
        assertTrue(store.put(key(1, 1, "a"), "A", 400, now, clock));
        assertTrue(store.put(key(2, 1, "b"), "B", 400, now, clock));
        assertEquals(800, store.bytes());
        assertTrue(store.put(key(3, 1, "c"), "C", 300, now, clock), "1,100 > 1,000: the oldest goes");
        assertNull(store.get(key(1, 1, "a"), String.class, now));
        assertEquals(700, store.bytes());
        assertTrue(store.resize(key(3, 1, "c"), 700), "an upload grew");
        assertNull(store.get(key(2, 1, "b"), String.class, now), "evicted for the growing upload");
        assertEquals(700, store.bytes());
        assertFalse(store.resize(key(3, 1, "c"), 1_001), "over the whole budget alone: dropped");
        assertEquals(0, store.size());
        assertEquals(0, store.bytes());
        assertFalse(store.put(key(3, 1, "d"), "D", 5_000, now, clock), "never fits: refused");
    }

    @Test
    void sweepExpiresIdleEntriesAndStopsWhenEmpty() {
        store.put(key(1, 1, "a"), "A", 10, clock.nanoTime(), clock);
        clock.advance(Duration.ofSeconds(30));
        store.get(key(1, 1, "a"), String.class, clock.nanoTime()); // used: lifetime restarts
        clock.advance(Duration.ofSeconds(50));
        assertEquals(1, store.size(), "used 50 s ago, lifetime 60 s");
        clock.advance(Duration.ofSeconds(20));
        assertEquals(0, store.size(), "idle 70 s: swept");
        assertEquals(0, store.bytes());
        assertEquals(0, clock.pendingTasks(), "the sweep stopped itself once the store was empty");
    }
}
