package io.stagecoach.bench.jmh;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.MessageIdProvider;
import io.stagecoach.core.network.internal.PeerKey;
import io.stagecoach.core.network.internal.cc.PeerStateMap;
import io.stagecoach.core.network.internal.dedup.DedupResult;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Hash flooding (docs/security.md): the cost of one operation on a store that already holds
 * {@code n} keys an attacker chose, random ones ({@code keys=random}) against ones that share
 * the JDK's hash ({@code keys=colliding}: IPv6 peers of one /64 with one
 * {@code InetSocketAddress.hashCode}, tokens with one {@code Arrays.hashCode}; {@link FloodKeys}).
 * "Flat" means the cost per operation does not grow with {@code n}.
 *
 * <p>One operation keeps the store at {@code n} keys: a key from a ring of {@value #RING} extra
 * keys of the same kind goes in, one of the {@code n} present keys (in a scrambled order) is
 * looked up, and the extra key is removed. The stores are the real ones of the endpoint:
 * <ul>
 *   <li>{@link #dedup}: {@link DeduplicationStore} (STRICT, caps raised above {@code n}), one
 *       message per peer: insert, duplicate lookup, forget;</li>
 *   <li>{@link #exchangeByMid}: {@link ExchangeStore}'s (peer, MID) map: register, find, remove;</li>
 *   <li>{@link #exchangeByToken}: its (peer, token) map, all tokens of one peer (the observe
 *       layer keys its relations the same way, with the tokens a client chose);</li>
 *   <li>{@link #congestionPeers}: the reliability layer's per-peer RTO state
 *       ({@link PeerStateMap} keyed by {@link PeerKey}, capacity raised above {@code n}): create,
 *       get, remove;</li>
 *   <li>{@link #midProvider}: {@link MessageIdProvider}, the next MID of two present peers (it
 *       has no per-peer removal; its inserts happen in the set-up).</li>
 * </ul>
 * The baseline is what the attack does to a {@link ConcurrentHashMap} keyed by the JDK's hash:
 * {@link #jdkPeerMap} ({@code InetSocketAddress} keys) and {@link #jdkTokenMap} (a byte-array key
 * hashed with {@code Arrays.hashCode}). Neither key is {@code Comparable}, so a crowded bin turns
 * into a tree that must be searched in full: with colliding keys every operation walks all
 * {@code n} of them, and filling the map costs {@code n²/2} comparisons (run it with
 * {@code -p n=1000,10000}; see docs/benchmarks/security.md). Results: docs/benchmarks/security.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HashFloodBenchmark {

    static final int RING = 1_024;
    static final int PROBES = 4_096;
    private static final byte[] REPLY = new byte[12];
    private static final Object VALUE = new Object();

    /** The keys and the order in which present ones are looked up; shared by every store's state. */
    @State(Scope.Thread)
    public abstract static class Keys {
        @Param({"1000", "10000", "100000"})
        public int n;

        @Param({"random", "colliding"})
        public String keys;

        /** Indices of present keys in a scrambled order. */
        final int[] probe = new int[PROBES];
        int next;

        boolean colliding() {
            return switch (keys) {
                case "random" -> false;
                case "colliding" -> true;
                default -> throw new IllegalArgumentException("keys must be random or colliding, got " + keys);
            };
        }

        /** {@code n} present peers followed by {@value #RING} extra ones. */
        List<InetSocketAddress> peers() {
            return colliding() ? FloodKeys.collidingPeers(n + RING) : FloodKeys.randomPeers(n + RING, 66);
        }

        /** {@code n} present tokens followed by {@value #RING} extra ones. */
        List<byte[]> tokens() {
            return colliding() ? FloodKeys.collidingTokens(n + RING) : FloodKeys.randomTokens(n + RING, 66);
        }

        void scramble() {
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < PROBES; i++) {
                probe[i] = r.nextInt(n);
            }
        }

        /** The next present index to look up and the next extra index (0..RING-1) to insert. */
        int nextProbe() {
            return probe[next & (PROBES - 1)];
        }

        int nextExtra() {
            return next++ & (RING - 1);
        }
    }

    public static class Dedup extends Keys {
        InetSocketAddress[] peers;
        DeduplicationStore store;

        @Setup(Level.Trial)
        public void fill() {
            peers = peers().toArray(new InetSocketAddress[0]);
            store = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).clock(() -> 0L)
                    .maxEntries(n + RING + 1).maxEntriesPerSource(n + RING + 1).build();
            for (int i = 0; i < n; i++) {
                store.lookupOrInsert(peers[i], 1, true, false, 0L);
                store.complete(peers[i], 1, REPLY);
            }
            scramble();
            check(store.size() == n, "dedup holds " + store.size());
        }
    }

    public static class ByMid extends Keys {
        final ExchangeStore store = new ExchangeStore();
        InetSocketAddress[] peers;
        Exchange[] ring;

        @Setup(Level.Trial)
        public void fill() {
            peers = peers().toArray(new InetSocketAddress[0]);
            Request get = Request.get().build();
            for (int i = 0; i < n; i++) {
                store.registerMid(new Exchange(Exchange.Origin.LOCAL, get, EndpointContext.of(peers[i]), 0L, null), 1);
            }
            ring = new Exchange[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = new Exchange(Exchange.Origin.LOCAL, get, EndpointContext.of(peers[n + i]), 0L, null);
            }
            scramble();
            check(store.size() == n, "by-MID map holds " + store.size());
        }
    }

    public static class ByToken extends Keys {
        final ExchangeStore store = new ExchangeStore();
        final InetSocketAddress peer = FloodKeys.randomPeers(1, 1).get(0);
        Token[] tokens;
        Exchange[] ring;

        @Setup(Level.Trial)
        public void fill() {
            tokens = tokens().stream().map(Token::of).toArray(Token[]::new);
            Request get = Request.get().build();
            EndpointContext ctx = EndpointContext.of(peer);
            for (int i = 0; i < n; i++) {
                check(store.registerToken(new Exchange(Exchange.Origin.LOCAL, get, ctx, 0L, null), tokens[i]),
                        "token " + i + " taken");
            }
            ring = new Exchange[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = new Exchange(Exchange.Origin.LOCAL, get, ctx, 0L, null);
            }
            scramble();
            check(store.size() == n, "by-token map holds " + store.size());
        }
    }

    public static class Congestion extends Keys {
        InetSocketAddress[] peers;
        PeerStateMap<PeerKey, Object> map;

        @Setup(Level.Trial)
        public void fill() {
            peers = peers().toArray(new InetSocketAddress[0]);
            map = new PeerStateMap<>(n + RING + 1);
            for (int i = 0; i < n; i++) {
                map.computeIfAbsent(new PeerKey(peers[i]), k -> new Object());
            }
            scramble();
            check(map.size() == n, "congestion map holds " + map.size());
        }
    }

    public static class Mids extends Keys {
        InetSocketAddress[] peers;
        MessageIdProvider provider;
        long now;

        @Setup(Level.Trial)
        public void fill() {
            peers = peers().toArray(new InetSocketAddress[0]);
            // A 1-ns lifetime with a clock that moves on every call: MIDs are never exhausted.
            provider = new MessageIdProvider(Duration.ofNanos(1), n + RING + 1, n + RING + 1, new SplittableRandom(3));
            for (int i = 0; i < n; i++) {
                provider.nextMid(peers[i], ++now);
            }
            scramble();
            check(provider.trackedPeers() == n, "provider tracks " + provider.trackedPeers());
        }
    }

    public static class JdkPeers extends Keys {
        InetSocketAddress[] peers;
        final ConcurrentHashMap<InetSocketAddress, Object> map = new ConcurrentHashMap<>();

        @Setup(Level.Trial)
        public void fill() {
            peers = peers().toArray(new InetSocketAddress[0]);
            for (int i = 0; i < n; i++) {
                map.put(peers[i], VALUE);
            }
            scramble();
        }
    }

    public static class JdkTokens extends Keys {
        JdkToken[] tokens;
        final ConcurrentHashMap<JdkToken, Object> map = new ConcurrentHashMap<>();

        @Setup(Level.Trial)
        public void fill() {
            tokens = tokens().stream().map(JdkToken::new).toArray(JdkToken[]::new);
            for (int i = 0; i < n; i++) {
                map.put(tokens[i], VALUE);
            }
            scramble();
        }
    }

    /** A token keyed the usual way: the bytes' {@code Arrays.hashCode}, not {@code Comparable}. */
    static final class JdkToken {
        final byte[] bytes;

        JdkToken(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JdkToken t && Arrays.equals(t.bytes, bytes);
        }
    }

    @Benchmark
    public boolean dedup(Dedup s) {
        int present = s.nextProbe();
        InetSocketAddress extra = s.peers[s.n + s.nextExtra()];
        DedupResult inserted = s.store.lookupOrInsert(extra, 1, true, false, 0L);
        DedupResult found = s.store.lookupOrInsert(s.peers[present], 1, true, false, 0L);
        return s.store.forget(extra, 1) && inserted.status() == DedupResult.Status.NEW
                && found.status() == DedupResult.Status.DONE;
    }

    @Benchmark
    public Exchange exchangeByMid(ByMid s) {
        int present = s.nextProbe();
        Exchange e = s.ring[s.nextExtra()];
        s.store.registerMid(e, 1);
        Exchange found = s.store.findByMid(s.peers[present], 1);
        s.store.remove(e);
        return found;
    }

    @Benchmark
    public Exchange exchangeByToken(ByToken s) {
        int present = s.nextProbe();
        int extra = s.nextExtra();
        Exchange e = s.ring[extra];
        s.store.registerToken(e, s.tokens[s.n + extra]);
        Exchange found = s.store.findByToken(s.peer, s.tokens[present]);
        s.store.remove(e);
        return found;
    }

    /** Keyed as the reliability layer keys it: a {@link PeerKey} made per call, as there. */
    @Benchmark
    public Object congestionPeers(Congestion s) {
        int present = s.nextProbe();
        PeerKey extra = new PeerKey(s.peers[s.n + s.nextExtra()]);
        s.map.computeIfAbsent(extra, k -> VALUE);
        Object found = s.map.get(new PeerKey(s.peers[present]));
        s.map.remove(extra);
        return found;
    }

    @Benchmark
    public int midProvider(Mids s) {
        int a = s.nextProbe();
        s.nextExtra();
        int b = s.nextProbe();
        return s.provider.nextMid(s.peers[a], ++s.now) + s.provider.nextMid(s.peers[b], ++s.now);
    }

    @Benchmark
    public Object jdkPeerMap(JdkPeers s) {
        int present = s.nextProbe();
        InetSocketAddress extra = s.peers[s.n + s.nextExtra()];
        s.map.put(extra, VALUE);
        Object found = s.map.get(s.peers[present]);
        s.map.remove(extra);
        return found;
    }

    @Benchmark
    public Object jdkTokenMap(JdkTokens s) {
        int present = s.nextProbe();
        JdkToken extra = s.tokens[s.n + s.nextExtra()];
        s.map.put(extra, VALUE);
        Object found = s.map.get(s.tokens[present]);
        s.map.remove(extra);
        return found;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }
}
