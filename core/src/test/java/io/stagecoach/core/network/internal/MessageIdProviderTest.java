package io.stagecoach.core.network.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MessageIdProviderTest {

    static final long T0 = -5_000_000_000L; // clocks may start negative
    static final long SECOND = 1_000_000_000L;
    static final Duration LIFETIME = Duration.ofSeconds(247);
    static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 5683);
    static final InetSocketAddress PEER2 = new InetSocketAddress("127.0.0.1", 5684);

    static MessageIdProvider provider(long seed, int maxPeers) {
        return new MessageIdProvider(LIFETIME, maxPeers, maxPeers, new SplittableRandom(seed));
    }

    @Test
    void midsAreSequentialFromARandomStartAndWrapAt65536() {
        MessageIdProvider p = provider(1, 10);
        int first = p.nextMid(PEER, T0);
        for (int i = 1; i < 65_536; i++) {
            assertEquals((first + i) & 0xFFFF, p.nextMid(PEER, T0), "MID number " + i);
        }
    }

    @Test
    void startMidsDifferAcrossPeersAndSeeds() {
        MessageIdProvider p = provider(42, 10);
        int a = p.nextMid(PEER, T0);
        int b = p.nextMid(PEER2, T0);
        assertNotEquals(a, b, "two peers, seed 42");
        assertEquals(a, provider(42, 10).nextMid(PEER, T0), "same seed, same start");
        assertNotEquals(a, provider(43, 10).nextMid(PEER, T0), "other seed, other start");
    }

    @Test
    void all65536MidsWithinTheLifetimeExhaustThePeerButNotOthers() {
        MessageIdProvider p = provider(7, 10);
        int first = p.nextMid(PEER, T0);
        for (int i = 1; i < 65_536; i++) {
            p.nextMid(PEER, T0 + i * 3_000_000L); // one every 3 ms: 196 s for the lot
        }
        long now = T0 + 246 * SECOND;
        MidExhaustedException e = assertThrows(MidExhaustedException.class, () -> p.nextMid(PEER, now));
        assertEquals("no free message ID for /127.0.0.1:5683: all 65536 used within EXCHANGE_LIFETIME 247 s;"
                + " at most ~265 messages/s per peer", e.getMessage());
        assertSame(PEER, e.peer());
        p.nextMid(PEER2, now); // another peer is unaffected
        // First MID was used at T0, the whole first block by T0 + 3.07 s: free again 247 s later.
        assertThrows(MidExhaustedException.class, () -> p.nextMid(PEER, T0 + 247 * SECOND));
        assertEquals(first, p.nextMid(PEER, T0 + 251 * SECOND), "the start MID is reused after the lifetime");
        assertEquals((first + 1) & 0xFFFF, p.nextMid(PEER, T0 + 251 * SECOND));
    }

    @Test
    void idlePeersAreSweptAndStartAfresh() {
        MessageIdProvider p = provider(3, 10);
        p.nextMid(PEER, T0);
        p.nextMid(PEER2, T0 + 100 * SECOND);
        assertEquals(0, p.sweep(T0 + 246 * SECOND));
        assertEquals(1, p.sweep(T0 + 247 * SECOND), "PEER idle for 247 s");
        assertEquals(1, p.trackedPeers());
        assertEquals(1, p.sweep(T0 + 347 * SECOND), "PEER2 idle for 247 s");
        assertEquals(0, p.trackedPeers());
        p.nextMid(PEER, T0 + 400 * SECOND);
        assertEquals(1, p.trackedPeers());
    }

    @Test
    void peerCapThrowsForANewPeer() {
        MessageIdProvider p = provider(5, 1);
        p.nextMid(PEER, T0);
        MidExhaustedException e = assertThrows(MidExhaustedException.class, () -> p.nextMid(PEER2, T0));
        assertEquals("no message ID for /127.0.0.1:5684: already tracking the maximum of 1 peers with message IDs"
                + " in use", e.getMessage());
        p.sweep(T0 + 247 * SECOND);
        p.nextMid(PEER2, T0 + 247 * SECOND); // room after the sweep
    }

    @Test
    void periodicSweepRunsOnTheScheduler() {
        VirtualClock scheduler = new VirtualClock();
        MessageIdProvider p = provider(9, 10);
        p.start(scheduler, Duration.ofSeconds(30));
        assertThrows(IllegalStateException.class, () -> p.start(scheduler, Duration.ofSeconds(30)));
        p.nextMid(PEER, scheduler.nanoTime());
        scheduler.advance(Duration.ofSeconds(240));
        assertEquals(1, p.trackedPeers());
        scheduler.advance(Duration.ofSeconds(30));
        assertEquals(0, p.trackedPeers(), "swept by the run at 270 s");
        p.stop();
        assertEquals(0, scheduler.pendingTasks());
    }

    @Test
    void concurrentCallersGetDistinctMids() throws Exception {
        MessageIdProvider p = provider(8, 10);
        java.util.concurrent.ConcurrentHashMap<Integer, Boolean> seen = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger duplicates = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 16_000; i++) {
                    if (seen.put(p.nextMid(PEER, T0), Boolean.TRUE) != null) {
                        duplicates.incrementAndGet();
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
            assertFalse(thread.isAlive());
        }
        assertEquals(0, duplicates.get(), "4 threads x 16,000 MIDs for one peer");
        assertEquals(64_000, seen.size());
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new MessageIdProvider(Duration.ZERO, 1, 1, new SplittableRandom()));
        assertThrows(IllegalArgumentException.class, () -> new MessageIdProvider(LIFETIME, 0, 1, new SplittableRandom()));
        assertThrows(NullPointerException.class, () -> provider(1, 1).nextMid(null, T0));
    }
}
