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

/** Caps, LRU eviction and the self-stopping sweep of the server's block-wise state. */
class BlockwiseStatusStoreTest {

    private final VirtualClock clock = new VirtualClock();
    private final BlockwiseSettings settings = new BlockwiseSettings(5, 1024, 8192, Duration.ofSeconds(60), 2, 3,
            Duration.ofSeconds(10), 2);
    private final BlockwiseStatusStore store = new BlockwiseStatusStore(settings);

    private static TransferKey key(int peer, String target) {
        return new TransferKey(new InetSocketAddress("10.0.0." + peer, 5683), false, Code.GET, target, "");
    }

    @Test
    void perPeerCapRefusesOrEvictsTheLeastRecentlyUsed() {
        long now = clock.nanoTime();
        assertTrue(store.put(key(1, "a"), "A", now, false, clock));
        assertTrue(store.put(key(1, "b"), "B", now, false, clock));
        assertFalse(store.put(key(1, "c"), "C", now, false, clock), "third transfer of the peer refused");
        store.get(key(1, "a"), String.class, now); // a is now the most recently used
        assertTrue(store.put(key(1, "c"), "C", now, true, clock));
        assertNull(store.get(key(1, "b"), String.class, now), "b, least recently used, was evicted");
        assertEquals("A", store.get(key(1, "a"), String.class, now));
        assertEquals(2, store.size());
    }

    @Test
    void totalCapEvictsAcrossPeers() {
        long now = clock.nanoTime();
        store.put(key(1, "a"), "A", now, true, clock);
        store.put(key(2, "a"), "B", now, true, clock);
        store.put(key(3, "a"), "C", now, true, clock);
        assertFalse(store.put(key(4, "a"), "D", now, false, clock), "total cap 3 reached");
        assertTrue(store.put(key(4, "a"), "D", now, true, clock));
        assertEquals(3, store.size());
        assertNull(store.get(key(1, "a"), String.class, now), "the oldest entry of any peer went");
    }

    @Test
    void sweepExpiresIdleEntriesAndStopsWhenEmpty() {
        store.put(key(1, "a"), "A", clock.nanoTime(), false, clock);
        clock.advance(Duration.ofSeconds(30));
        store.get(key(1, "a"), String.class, clock.nanoTime()); // used: lifetime restarts
        clock.advance(Duration.ofSeconds(50));
        assertEquals(1, store.size(), "used 50 s ago, lifetime 60 s");
        clock.advance(Duration.ofSeconds(20));
        assertEquals(0, store.size(), "idle 70 s: swept");
        assertEquals(0, clock.pendingTasks(), "the sweep stopped itself once the store was empty");
    }
}
