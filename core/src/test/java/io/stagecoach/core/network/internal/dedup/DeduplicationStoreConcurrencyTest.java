package io.stagecoach.core.network.internal.dedup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.dedup.DedupResult.Status;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class DeduplicationStoreConcurrencyTest {

    static final int THREADS = 4;
    static final long T0 = 1_000L;

    /** Runs {@code body(threadIndex)} on THREADS threads started together; joins all of them. */
    static void runConcurrently(java.util.function.IntConsumer body) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(THREADS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    barrier.await();
                    body.accept(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "dedup-test-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
            assertFalse(thread.isAlive(), thread.getName() + " left running");
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @Test
    void fourThreadsHammeringTheSameMessagesSeeExactlyOneNewEach() throws Exception {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).clock(() -> T0).build();
        InetSocketAddress v4 = new InetSocketAddress("192.0.2.7", 5683);
        InetSocketAddress v6 = new InetSocketAddress("2001:db8::7", 5683);
        int mids = 20_000;
        AtomicIntegerArray newCount = new AtomicIntegerArray(2 * mids);
        runConcurrently(t -> {
            for (int mid = 0; mid < mids; mid++) {
                // Every thread sends each (peer, mid) once: 4 copies of the same message race.
                if (s.lookupOrInsert(v4, mid, true, false, T0).status() == Status.NEW) {
                    newCount.incrementAndGet(mid);
                }
                if (s.lookupOrInsert(v6, mid, true, false, T0).status() == Status.NEW) {
                    newCount.incrementAndGet(mids + mid);
                }
            }
        });
        for (int i = 0; i < 2 * mids; i++) {
            assertEquals(1, newCount.get(i), "NEW results for message " + i);
        }
        assertEquals(2 * mids, s.size());
        assertEquals(2L * mids * (THREADS - 1), s.statistics().duplicates());
    }

    @Test
    void concurrentInsertCompleteAndSweepKeepCountsExact() throws Exception {
        DeduplicationStore s = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).segments(4)
                .maxEntriesPerSource(1_000).clock(() -> T0).build();
        int peersPerThread = 50;
        runConcurrently(t -> {
            for (int p = 0; p < peersPerThread; p++) {
                InetSocketAddress peer = new InetSocketAddress("10.0." + t + "." + p, 5683);
                for (int mid = 0; mid < 1_200; mid++) {
                    // NON requests received at T0 (expire at 145 s); the sweeps below find none expired.
                    if (s.lookupOrInsert(peer, mid, false, false, T0).status() == Status.NEW) {
                        s.complete(peer, mid, new byte[] {(byte) mid});
                    }
                }
                s.sweep(T0 + 1);
            }
        });
        assertEquals(THREADS * peersPerThread * 1_000, s.size(), "1,000 per peer (cap), 200 overloaded each");
        assertEquals(THREADS * peersPerThread * 200, s.statistics().overloads());
        assertEquals(THREADS * peersPerThread, s.sources());
        assertEquals(THREADS * peersPerThread * 1_000, s.sweep(T0 + 145 * 1_000_000_000L));
        assertEquals(0, s.size());
        assertEquals(0, s.sources());
        assertEquals(0, s.estimatedBytes(), "every entry and reply given back");
    }
}
