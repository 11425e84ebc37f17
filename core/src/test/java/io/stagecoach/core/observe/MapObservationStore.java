package io.stagecoach.core.observe;

import io.stagecoach.core.coap.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@link ObservationStore} in a map shared by the "nodes" of a test: stores the encoded form
 * (so every test also round-trips {@link Observation#encode()}), answers at once, or holds its
 * lookups until {@link #release()} when {@link #hold()} was called.
 */
final class MapObservationStore implements ObservationStore {

    /** Encoded observations by token, with the node that stored each. */
    record Entry(String node, byte[] encoded) {
    }

    private final Map<Token, Entry> shared;
    private final String node;
    private final List<CompletableFuture<Observation>> held = new ArrayList<>();
    private boolean holding;
    /** When set, lookups fail as with a store that is down. */
    volatile boolean failing;
    int gets;

    MapObservationStore(Map<Token, Entry> shared, String node) {
        this.shared = shared;
        this.node = node;
    }

    static Map<Token, Entry> newSharedMap() {
        return new ConcurrentHashMap<>();
    }

    @Override
    public CompletionStage<Void> put(Observation observation) {
        shared.put(observation.token(), new Entry(node, observation.encode()));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletionStage<Observation> get(Token token) {
        gets++;
        if (failing) {
            return CompletableFuture.failedFuture(new IllegalStateException("the store is down"));
        }
        Entry e = shared.get(token);
        Observation o = e == null ? null : Observation.decode(e.encoded());
        if (holding) {
            CompletableFuture<Observation> f = new CompletableFuture<>();
            held.add(f);
            return f.thenApply(ignored -> o);
        }
        return CompletableFuture.completedFuture(o);
    }

    @Override
    public CompletionStage<Void> remove(Token token) {
        shared.remove(token);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<List<Observation>> restore() {
        List<Observation> mine = new ArrayList<>();
        shared.values().stream().filter(e -> e.node().equals(node)).forEach(e -> mine.add(Observation.decode(e.encoded())));
        return CompletableFuture.completedFuture(mine);
    }

    /** From now on lookups wait for {@link #release()}. */
    synchronized void hold() {
        holding = true;
    }

    /** Completes every held lookup and stops holding. */
    void release() {
        List<CompletableFuture<Observation>> now;
        synchronized (this) {
            holding = false;
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(f -> f.complete(null));
    }
}
