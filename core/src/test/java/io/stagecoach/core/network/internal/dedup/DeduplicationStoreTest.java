package io.stagecoach.core.network.internal.dedup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.dedup.DedupResult.Status;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeduplicationStoreTest {

    static final long T0 = 7_000_000_123L; // arbitrary non-zero clock start
    static final long SECOND = 1_000_000_000L;
    static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.1", 5683);
    static final InetSocketAddress OTHER_PORT = new InetSocketAddress("192.0.2.1", 5684);
    static final InetSocketAddress PEER_V6 = new InetSocketAddress("2001:db8::1", 5683);
    /** An encoded ACK 2.05 "hello world" for MID 0x1234: 4 header bytes, marker, 11 payload bytes. */
    static final byte[] REPLY = {0x60, 0x45, 0x12, 0x34, (byte) 0xFF,
        'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};

    static DeduplicationStore store(DeduplicationMode mode) {
        return DeduplicationStore.builder().mode(mode).clock(() -> T0).build();
    }

    @Test
    void conRequestIsNewThenInFlightThenDoneWithTheStoredReply() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        // Received CON POST mid 0x1234 from 192.0.2.1:5683 three times.
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 0x1234, true, false, T0).status());
        assertSame(Status.IN_FLIGHT, s.lookupOrInsert(PEER, 0x1234, true, false, T0 + SECOND).status());
        assertTrue(s.complete(PEER, 0x1234, REPLY));
        DedupResult dup = s.lookupOrInsert(PEER, 0x1234, true, false, T0 + 2 * SECOND);
        assertEquals(Status.DONE, dup.status());
        assertArrayEquals(REPLY, dup.reply(), "duplicate gets the very same ACK bytes");
        assertFalse(dup.emptyAck());
        assertEquals(new DedupStatistics(1, 1, 2, 0, 0), s.statistics());
    }

    @Test
    void emptyAckThenSeparateResponse() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        s.lookupOrInsert(PEER, 7, true, true, T0);
        assertTrue(s.completeEmptyAck(PEER, 7));
        DedupResult dup = s.lookupOrInsert(PEER, 7, true, true, T0);
        assertEquals(Status.DONE, dup.status());
        assertTrue(dup.emptyAck(), "duplicate after an empty ACK: resend the empty ACK");
        assertNull(dup.reply());
        assertTrue(s.complete(PEER, 7, REPLY));
        assertArrayEquals(REPLY, s.lookupOrInsert(PEER, 7, true, true, T0).reply());
    }

    /**
     * A reply in a reused buffer is copied when it is kept (IPv4 table and the fallback table
     * alike): overwriting the buffer afterwards leaves the stored reply as it was sent.
     */
    @Test
    void aReplyFromAReusedBufferIsCopiedWhenKept() {
        for (InetSocketAddress peer : new InetSocketAddress[] {PEER, PEER_V6}) {
            DeduplicationStore s = store(DeduplicationMode.STRICT);
            s.lookupOrInsert(peer, 0x1234, true, false, T0);
            byte[] buffer = new byte[64];
            System.arraycopy(REPLY, 0, buffer, 0, REPLY.length);
            assertTrue(s.complete(peer, 0x1234, buffer, REPLY.length));
            java.util.Arrays.fill(buffer, (byte) 0x55);
            assertArrayEquals(REPLY, s.lookupOrInsert(peer, 0x1234, true, false, T0).reply(), "" + peer);
        }
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        assertThrows(IllegalArgumentException.class, () -> s.complete(PEER, 1, new byte[4], 5));
        assertThrows(IllegalArgumentException.class, () -> s.complete(PEER, 1, new byte[4], -1));
    }

    /** In relaxed mode a GET answered from a reused buffer is released, not kept. */
    @Test
    void aRelaxedIdempotentReplyFromABufferIsReleased() {
        DeduplicationStore s = store(DeduplicationMode.IDEMPOTENT_RELAXED);
        s.lookupOrInsert(PEER, 9, true, true, T0);
        assertTrue(s.complete(PEER, 9, REPLY, REPLY.length));
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 9, true, true, T0).status());
    }

    @Test
    void peersDifferingOnlyInPortOrFamilyAreDistinct() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 1, true, false, T0).status());
        assertEquals(Status.NEW, s.lookupOrInsert(OTHER_PORT, 1, true, false, T0).status());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER_V6, 1, true, false, T0).status());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 2, true, false, T0).status());
        assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(PEER_V6, 1, true, false, T0).status());
        assertEquals(4, s.size());
        assertEquals(2, s.sources(), "two ports of one host are one source; IPv6 another");
    }

    @Test
    void strictKeepsConFor247SecondsAndNonFor145SecondsFromReceipt() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        for (InetSocketAddress peer : new InetSocketAddress[] {PEER, PEER_V6}) {
            s.lookupOrInsert(peer, 10, true, true, T0);   // CON GET
            s.lookupOrInsert(peer, 11, false, true, T0);  // NON GET
            s.complete(peer, 10, REPLY);
            s.complete(peer, 11, REPLY);
        }
        assertEquals(0, s.sweep(T0 + 145 * SECOND - 1));
        assertEquals(Status.DONE, s.lookupOrInsert(PEER_V6, 11, false, true, T0 + 145 * SECOND - 1).status());
        assertEquals(2, s.sweep(T0 + 145 * SECOND), "both NON entries expire at 145 s");
        assertEquals(0, s.sweep(T0 + 247 * SECOND - 1));
        assertEquals(Status.DONE, s.lookupOrInsert(PEER, 10, true, true, T0 + 247 * SECOND - 1).status());
        assertEquals(2, s.sweep(T0 + 247 * SECOND), "both CON entries expire at 247 s");
        assertEquals(0, s.size());
        assertEquals(0, s.sources(), "no per-peer count left behind");
        assertEquals(4, s.statistics().swept());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 10, true, true, T0 + 247 * SECOND).status());
    }

    @Test
    void expiredButUnsweptEntryIsNewAgain() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        s.lookupOrInsert(PEER, 3, false, false, T0);
        s.complete(PEER, 3, REPLY);
        // No sweep ran; 145 s later the same MID is a new message, not a duplicate.
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 3, false, false, T0 + 145 * SECOND).status());
        assertEquals(1, s.size());
        assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(PEER, 3, false, false, T0 + 146 * SECOND).status());
    }

    @Test
    void relaxedModeReleasesIdempotentRequestsOnCompletionButKeepsPost() {
        DeduplicationStore s = store(DeduplicationMode.IDEMPOTENT_RELAXED);
        assertEquals(DeduplicationMode.IDEMPOTENT_RELAXED, DeduplicationStore.builder().build().mode(), "default");
        s.lookupOrInsert(PEER, 1, true, true, T0);   // GET
        s.lookupOrInsert(PEER, 2, true, false, T0);  // POST
        assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(PEER, 1, true, true, T0).status(),
                "an idempotent request in flight is still deduplicated");
        assertTrue(s.completeEmptyAck(PEER, 1));
        assertTrue(s.lookupOrInsert(PEER, 1, true, true, T0).emptyAck(), "kept while the separate response is pending");
        assertTrue(s.complete(PEER, 1, REPLY));
        assertTrue(s.complete(PEER, 2, REPLY));
        assertEquals(1, s.size(), "GET entry removed on completion, POST entry kept");
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 1, true, true, T0).status());
        assertArrayEquals(REPLY, s.lookupOrInsert(PEER, 2, true, false, T0).reply());
    }

    /** The exchange of a request answered with an empty ACK ended: only relaxed idempotent entries go. */
    @Test
    void releaseDropsOnlyRelaxedIdempotentEntriesAnsweredWithAnEmptyAck() {
        DeduplicationStore relaxed = store(DeduplicationMode.IDEMPOTENT_RELAXED);
        for (InetSocketAddress peer : new InetSocketAddress[] {PEER, PEER_V6}) {
            relaxed.lookupOrInsert(peer, 1, true, true, T0);   // GET, separate response
            relaxed.lookupOrInsert(peer, 2, true, false, T0);  // POST, separate response
            relaxed.lookupOrInsert(peer, 3, true, true, T0);   // GET still in flight
            relaxed.completeEmptyAck(peer, 1);
            relaxed.completeEmptyAck(peer, 2);
            assertTrue(relaxed.release(peer, 1), "relaxed GET entry released with its exchange");
            assertFalse(relaxed.release(peer, 2), "POST keeps its empty ACK for the full lifetime");
            assertFalse(relaxed.release(peer, 3), "an entry without an empty ACK is left alone");
            assertFalse(relaxed.release(peer, 4), "unknown MID");
            assertEquals(Status.NEW, relaxed.lookupOrInsert(peer, 1, true, true, T0).status());
            assertTrue(relaxed.lookupOrInsert(peer, 2, true, false, T0).emptyAck());
        }
        DeduplicationStore strict = store(DeduplicationMode.STRICT);
        strict.lookupOrInsert(PEER, 1, true, true, T0);
        strict.completeEmptyAck(PEER, 1);
        assertFalse(strict.release(PEER, 1), "STRICT remembers a GET for EXCHANGE_LIFETIME");
        assertTrue(strict.lookupOrInsert(PEER, 1, true, true, T0).emptyAck());
    }

    @Test
    void offModeRemembersNothing() {
        DeduplicationStore s = store(DeduplicationMode.OFF);
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 1, true, false, T0).status());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 1, true, false, T0).status());
        assertFalse(s.complete(PEER, 1, REPLY));
        assertEquals(0, s.size());
    }

    @Test
    void forgetMakesARetransmissionNew() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        s.lookupOrInsert(PEER_V6, 9, true, false, T0);
        s.lookupOrInsert(PEER, 9, true, false, T0);
        assertTrue(s.forget(PEER, 9));
        assertTrue(s.forget(PEER_V6, 9));
        assertFalse(s.forget(PEER, 9));
        assertEquals(0, s.size());
        assertEquals(0, s.sources());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 9, true, false, T0).status());
    }

    @Test
    void aFullStoreEvictsTheOldestEntriesOfItsHeaviestSource() {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).maxEntries(20)
                .clock(() -> T0).build();
        InetSocketAddress heavy = new InetSocketAddress("10.0.0.66", 40000);
        for (int mid = 0; mid < 16; mid++) { // 16 entries, expiring one second apart: mid 0 oldest
            assertEquals(Status.NEW, s.lookupOrInsert(heavy, mid, true, false, T0 + mid * SECOND).status());
        }
        for (int h = 0; h < 4; h++) {
            assertEquals(Status.NEW, s.lookupOrInsert(new InetSocketAddress("10.0.1." + h, 5683), 1, true, false,
                    T0 + 20 * SECOND).status());
        }
        assertEquals(20, s.size(), "full");
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 100, true, false, T0 + 21 * SECOND).status(),
                "a newcomer is remembered, not refused");
        assertEquals(2, s.evictions(), "an eighth of the heaviest source's 16 entries");
        assertEquals(Status.NEW, s.lookupOrInsert(heavy, 0, true, false, T0 + 22 * SECOND).status(),
                "its oldest entry went first");
        assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(heavy, 15, true, false, T0 + 22 * SECOND).status(),
                "its newest stayed");
        for (int h = 0; h < 4; h++) {
            assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(new InetSocketAddress("10.0.1." + h, 5683), 1, true, false,
                    T0 + 22 * SECOND).status(), "the light sources kept everything");
        }
        assertEquals(0, s.statistics().overloads());
    }

    @Test
    void aFullStoreEvictsAnIpv6SourceAsWell() {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).maxEntries(10)
                .clock(() -> T0).build();
        for (int i = 0; i < 10; i++) { // ten addresses of one /64, different ports: one source
            InetSocketAddress p = new InetSocketAddress("2001:db8:0:1::" + Integer.toHexString(i + 1), 5000 + i);
            assertEquals(Status.NEW, s.lookupOrInsert(p, 1, true, false, T0 + i * SECOND).status());
        }
        assertEquals(1, s.sources());
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 1, true, false, T0 + 20 * SECOND).status());
        assertEquals(10, s.size());
        assertEquals(1, s.evictions());
    }

    /**
     * Byte budget: with 2,000 bytes, IPv4 entries (33 B) with 200-byte replies (216 B arrays):
     * the 9th would pass 2,000, so the source's oldest entry makes room; IPv6 entries (88 B)
     * without replies stay at 22. The estimate returns to 0 when everything is swept.
     */
    @Test
    void byteBudgetCountsRepliesAndIpv6Entries() {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).maxBytes(2_000)
                .clock(() -> T0).build();
        byte[] big = new byte[200];
        for (int mid = 0; mid < 100; mid++) {
            assertEquals(Status.NEW, s.lookupOrInsert(PEER, mid, true, false, T0).status());
            assertTrue(s.complete(PEER, mid, big));
            assertTrue(s.estimatedBytes() <= 2_000 + 216, "within the budget (plus the reply just stored)");
        }
        assertEquals(8, s.size(), "8 × (33 + 216) = 1,992 bytes fit at a time");
        assertTrue(s.evictions() >= 92);
        s.sweep(T0 + 248 * SECOND);
        assertEquals(0, s.estimatedBytes());
        assertEquals(0, s.size());

        for (int v6 = 0; v6 < 100; v6++) {
            assertEquals(Status.NEW, s.lookupOrInsert(PEER_V6, v6, true, false, T0 + 248 * SECOND).status());
        }
        assertEquals(22, s.size(), "22 × 88 = 1,936 bytes");
        s.sweep(T0 + 2 * 248 * SECOND);
        assertEquals(0, s.estimatedBytes());
    }

    @Test
    void perSourceCapCoversEveryPortOfTheHostAndLeavesOtherSourcesServed() {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).maxEntriesPerSource(2)
                .clock(() -> T0).build();
        for (InetSocketAddress p : new InetSocketAddress[] {PEER, PEER_V6}) {
            assertEquals(Status.NEW, s.lookupOrInsert(p, 1, true, false, T0).status());
            assertEquals(Status.NEW, s.lookupOrInsert(p, 2, true, false, T0).status());
            assertEquals(Status.OVERLOADED, s.lookupOrInsert(p, 3, true, false, T0).status());
        }
        assertEquals(Status.OVERLOADED, s.lookupOrInsert(OTHER_PORT, 3, true, false, T0).status(),
                "another port of the same host shares its budget");
        assertEquals(Status.NEW, s.lookupOrInsert(new InetSocketAddress("192.0.2.99", 5683), 3, true, false, T0)
                .status(), "another host is served");
        assertTrue(s.forget(PEER, 1));
        assertEquals(Status.NEW, s.lookupOrInsert(PEER, 3, true, false, T0).status(), "room again after forget");
        assertEquals(3, s.statistics().overloads());
    }

    @Test
    void sweepShrinksTablesAndDropsPeers() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        int before = s.capacity();
        for (int p = 0; p < 100; p++) {
            InetSocketAddress peer = new InetSocketAddress("198.51.100." + p, 40000 + p);
            for (int mid = 0; mid < 100; mid++) {
                s.lookupOrInsert(peer, mid, false, false, T0);
            }
        }
        assertEquals(10_000, s.size());
        assertEquals(100, s.sources());
        assertTrue(s.capacity() > before);
        assertEquals(10_000, s.sweep(T0 + 145 * SECOND));
        assertEquals(0, s.size());
        assertEquals(0, s.sources());
        assertEquals(before, s.capacity(), "tables back to their initial size");
    }

    @Test
    void startSweepsPeriodicallyOnTheSchedulerAndStopCancels() {
        VirtualClock scheduler = new VirtualClock();
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).clock(scheduler).build();
        s.start(scheduler, Duration.ofSeconds(10));
        assertThrows(IllegalStateException.class, () -> s.start(scheduler, Duration.ofSeconds(10)));
        s.lookupOrInsert(PEER, 1, false, false, scheduler.nanoTime());
        scheduler.advance(Duration.ofSeconds(140));
        assertEquals(1, s.size(), "not yet: NON_LIFETIME is 145 s");
        scheduler.advance(Duration.ofSeconds(10));
        assertEquals(0, s.size(), "swept by the run at 150 s");
        assertEquals(1, scheduler.pendingTasks());
        s.stop();
        s.stop();
        assertEquals(0, scheduler.pendingTasks());
    }

    @Test
    void badArgumentsAreRejected() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        assertThrows(IllegalArgumentException.class, () -> s.lookupOrInsert(PEER, 65_536, true, false, T0));
        assertThrows(IllegalArgumentException.class, () -> s.lookupOrInsert(PEER, -1, true, false, T0));
        assertThrows(NullPointerException.class, () -> s.lookupOrInsert(null, 1, true, false, T0));
        assertThrows(NullPointerException.class, () -> s.complete(PEER, 1, null));
        assertThrows(IllegalArgumentException.class, () -> s.start(new VirtualClock(), Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> DeduplicationStore.builder().segments(3).build());
        assertThrows(IllegalArgumentException.class, () -> DeduplicationStore.builder().maxEntries(0).build());
        assertThrows(IllegalArgumentException.class, () -> DeduplicationStore.builder().maxEntriesPerSource(0).build());
        assertThrows(IllegalArgumentException.class,
                () -> DeduplicationStore.builder().exchangeLifetime(Duration.ZERO).build());
    }

    @Test
    void unresolvedPeerUsesTheFallbackTable() {
        DeduplicationStore s = store(DeduplicationMode.STRICT);
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("node.example", 5683);
        assertEquals(Status.NEW, s.lookupOrInsert(unresolved, 5, true, false, T0).status());
        assertEquals(Status.IN_FLIGHT, s.lookupOrInsert(unresolved, 5, true, false, T0).status());
    }
}
