package io.stagecoach.core.network.internal.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.config.CongestionControlMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class PeerStateMapTest {

    @Test
    void evictsLeastRecentlyUsed() {
        PeerStateMap<String, Integer> map = new PeerStateMap<>(3);
        map.put("a", 1);
        map.put("b", 2);
        map.put("c", 3);
        assertEquals(1, map.get("a")); // "a" becomes most recently used; "b" is now eldest
        map.put("d", 4);
        assertNull(map.get("b"), "least recently used entry must be evicted");
        assertEquals(3, map.size());
        assertEquals(1, map.evictions());
        assertEquals(1, map.get("a"));
        assertEquals(3, map.get("c"));
        assertEquals(4, map.get("d"));
    }

    @Test
    void computeIfAbsentCreatesOnceAndCountsAsUse() {
        PeerStateMap<String, Object> map = new PeerStateMap<>(2);
        Object a = map.computeIfAbsent("a", k -> new Object());
        map.computeIfAbsent("b", k -> new Object());
        assertSame(a, map.computeIfAbsent("a", k -> new Object())); // touch "a"
        map.computeIfAbsent("c", k -> new Object()); // evicts "b"
        assertNull(map.get("b"));
        assertSame(a, map.get("a"));
        assertEquals(a, map.remove("a"));
        assertEquals(1, map.size());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> new PeerStateMap<>(0));
        PeerStateMap<String, Object> map = new PeerStateMap<>(1);
        assertThrows(NullPointerException.class, () -> map.get(null));
        assertThrows(NullPointerException.class, () -> map.computeIfAbsent("a", k -> null));
        assertEquals(0, map.size());
    }

    @Test
    void sizedFromSettingsAndHoldsPeerStates() {
        CongestionControl cc = CongestionControl.of(CongestionControlMode.COCOA,
                CongestionSettings.builder().peerStateCapacity(2).build());
        PeerStateMap<String, PeerCongestionState> peers = cc.newPeerStateMap();
        assertEquals(2, peers.capacity());
        PeerCongestionState p = peers.computeIfAbsent("10.0.0.1:5683", k -> cc.newPeerState(0));
        assertSame(p, peers.computeIfAbsent("10.0.0.1:5683", k -> cc.newPeerState(0)));
    }

    @Test
    void concurrentUseStaysBoundedAndConsistent() throws InterruptedException {
        PeerStateMap<Integer, int[]> map = new PeerStateMap<>(100);
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            int seed = w;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        int key = (i * 31 + seed) % 500;
                        int[] state = map.computeIfAbsent(key, k -> new int[] {k});
                        if (state[0] != key) {
                            throw new AssertionError("key " + key + " mapped to state of " + state[0]);
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "peer-state-map-test-" + w);
            workers.add(t);
            t.start();
        }
        start.countDown();
        for (Thread t : workers) {
            t.join(10_000);
        }
        for (Thread t : workers) {
            assertTrue(!t.isAlive(), t.getName() + " still running");
        }
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        assertEquals(100, map.size());
        assertTrue(map.evictions() > 0);
    }
}
