package io.stagecoach.bench.jmh;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.elements.EndpointContext;
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
 * {@link ExchangeStore} operations of a client endpoint: register, look up and remove an exchange
 * by (peer, MID) and by (peer, token), in a store that already holds {@value #OPEN} open exchanges
 * of {@value #PEERS} peers (both keys each). The benchmark exchanges come from a ring of
 * {@value #RING} prepared exchanges, so the numbers are the store's own cost (the key records,
 * the map nodes, the per-exchange key list created at first registration), not the cost of
 * building exchanges. Results: docs/benchmarks/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExchangeStoreBenchmark {

    static final int PEERS = 1_000;
    static final int OPEN = 100_000;
    static final int RING = 4_096;

    private final ExchangeStore store = new ExchangeStore();
    private final EndpointContext[] peers = new EndpointContext[PEERS];
    private final Exchange[] ring = new Exchange[RING];
    private final Token[] ringTokens = new Token[RING];
    private final Exchange[] open = new Exchange[OPEN];
    private final Token[] openTokens = new Token[OPEN];
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        for (int p = 0; p < PEERS; p++) {
            peers[p] = EndpointContext.of(new InetSocketAddress("10.2." + (p >>> 8) + "." + (p & 0xFF), 5683));
        }
        Request get = Request.get().build();
        for (int i = 0; i < OPEN; i++) {
            open[i] = new Exchange(Exchange.Origin.LOCAL, get, peers[i % PEERS], 0L, null);
            openTokens[i] = Token.ofLong(i);
            store.registerMid(open[i], mid(i));
            store.registerToken(open[i], openTokens[i]);
        }
        for (int i = 0; i < RING; i++) {
            // MIDs and tokens above those of the open exchanges: no collisions with them.
            ring[i] = new Exchange(Exchange.Origin.LOCAL, get, peers[i % PEERS], 0L, null);
            ringTokens[i] = Token.ofLong(0x1_0000_0000L + i);
        }
    }

    /** The MID of the i-th open exchange: distinct per peer, below 40,000. */
    private static int mid(int i) {
        return i / PEERS;
    }

    @Benchmark
    public Exchange midRegisterLookupRemove() {
        int i = next++ & (RING - 1);
        Exchange e = ring[i];
        int mid = 40_000 + (i / PEERS);
        store.registerMid(e, mid);
        Exchange found = store.findByMid(e.peer().peer(), mid);
        store.remove(e);
        return found;
    }

    @Benchmark
    public Exchange tokenRegisterLookupRemove() {
        int i = next++ & (RING - 1);
        Exchange e = ring[i];
        store.registerToken(e, ringTokens[i]);
        Exchange found = store.findByToken(e.peer().peer(), ringTokens[i]);
        store.remove(e);
        return found;
    }

    /** A response or ACK finding its exchange among the open ones. */
    @Benchmark
    public Exchange lookupByMid() {
        int i = next++ % OPEN;
        return store.findByMid(peers[i % PEERS].peer(), mid(i));
    }

    @Benchmark
    public Exchange lookupByToken() {
        int i = next++ % OPEN;
        return store.findByToken(peers[i % PEERS].peer(), openTokens[i]);
    }
}
