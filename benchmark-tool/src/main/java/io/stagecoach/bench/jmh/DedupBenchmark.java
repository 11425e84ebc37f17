package io.stagecoach.bench.jmh;

import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.dedup.DedupResult;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Costs of the {@link DeduplicationStore} operations on the endpoint's hot path: a relaxed GET
 * (insert, then complete, which removes it), a duplicate lookup in a store holding 1,000,000
 * STRICT entries from 1,000 peers, and one sweep of 100,000 expired entries.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DedupBenchmark {

    static final int PEERS = 1_000;
    static final long SECOND = 1_000_000_000L;
    static final byte[] REPLY = new byte[20];

    static InetSocketAddress[] peers() {
        InetSocketAddress[] peers = new InetSocketAddress[PEERS];
        for (int p = 0; p < PEERS; p++) {
            peers[p] = new InetSocketAddress("10.0." + (p >>> 8) + "." + (p & 0xFF), 5683);
        }
        return peers;
    }

    /** A relaxed store that stays nearly empty: every GET is removed on completion. */
    @State(Scope.Thread)
    public static class Relaxed {
        final InetSocketAddress[] peers = peers();
        final DeduplicationStore store = DeduplicationStore.builder().clock(() -> 0L).build();
        int next;
    }

    /** A STRICT store holding 1,000 MIDs of each of 1,000 peers, all completed. */
    @State(Scope.Thread)
    public static class Full {
        final InetSocketAddress[] peers = peers();
        DeduplicationStore store;
        int next;

        @Setup(Level.Trial)
        public void fill() {
            store = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).clock(() -> 0L).build();
            for (int mid = 0; mid < 1_000; mid++) {
                for (InetSocketAddress peer : peers) {
                    store.lookupOrInsert(peer, mid, true, false, 0L);
                    store.complete(peer, mid, REPLY);
                }
            }
        }
    }

    /** 100,000 STRICT entries, refilled before every sweep. */
    @State(Scope.Thread)
    public static class Expiring {
        final InetSocketAddress[] peers = peers();
        final DeduplicationStore store = DeduplicationStore.builder().mode(DeduplicationMode.STRICT)
                .clock(() -> 0L).build();

        @Setup(Level.Invocation)
        public void fill() {
            for (int mid = 0; mid < 100; mid++) {
                for (InetSocketAddress peer : peers) {
                    store.lookupOrInsert(peer, mid, true, false, 0L);
                    store.complete(peer, mid, REPLY);
                }
            }
        }
    }

    @Benchmark
    public boolean relaxedGetInsertAndComplete(Relaxed s) {
        int n = s.next++ & 0x7FFFFFFF;
        InetSocketAddress peer = s.peers[n % PEERS];
        int mid = (n / PEERS) & 0xFFFF;
        DedupResult r = s.store.lookupOrInsert(peer, mid, true, true, 0L);
        return r.status() == DedupResult.Status.NEW && s.store.complete(peer, mid, REPLY);
    }

    @Benchmark
    public byte[] strictDuplicateLookup(Full s) {
        int n = s.next++ & 0x7FFFFFFF;
        return s.store.lookupOrInsert(s.peers[n % PEERS], (n / PEERS) % 1_000, true, false, SECOND).reply();
    }

    @Benchmark
    public int sweep100kExpired(Expiring s) {
        return s.store.sweep(300 * SECOND);
    }
}
