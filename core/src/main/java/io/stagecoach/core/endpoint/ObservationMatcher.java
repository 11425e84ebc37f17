package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.Source;
import io.stagecoach.core.network.internal.layers.ObserveSequence;
import io.stagecoach.core.observe.NotificationListener;
import io.stagecoach.core.observe.Observation;
import io.stagecoach.core.observe.ObservationStore;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's side of an {@link ObservationStore} (docs/cluster.md): a notification whose token
 * matches no exchange of this endpoint is looked up in the store, and when the store knows it the
 * endpoint <em>adopts</em> the observation: a client exchange for its registration request,
 * registered under the token and the address the notification came from, so this and every later
 * notification takes the normal path (deduplication, the ACK of a CON, block-wise fetching, RFC
 * 7641 §3.4 freshness) and ends at the {@link NotificationListener}s. A final notification (not
 * 2.xx, or without Observe, §3.2) removes the observation from the store and ends the exchange.
 *
 * <p>Bounded, since anyone can send a response with any token: at most
 * {@code coap.observe.store-lookups} lookups at once and {@code ...-per-source} per source (a
 * notification beyond is dropped without a word: its CON retransmission comes back, where a RST
 * would end a real observation, §3.6), and so is one whose lookup fails (the store is down); a
 * miss is answered RST as before (§3.6); at most
 * {@code coap.observe.store-max-adopted} adopted observations, the least recently notified
 * forgotten first (locally only: the store keeps it, and its next notification is looked up
 * again).
 */
final class ObservationMatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ObservationMatcher.class);

    /** What the endpoint does with a notification the store gave no observation for. */
    interface Miss {
        void unmatched(Response response);
    }

    private final ObservationStore store;
    private final ExchangeStore exchanges;
    private final Predicate<Runnable> stage;
    private final Clock clock;
    private final int maxLookups;
    private final int maxLookupsPerSource;
    private final int maxAdopted;
    private final List<NotificationListener> listeners = new CopyOnWriteArrayList<>();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder hits = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder storeErrors = new LongAdder();
    // guarded by this
    private final Map<Source, Integer> pendingPerSource = new HashMap<>();
    private int pending;
    private final LinkedHashMap<Token, Exchange> adopted = new LinkedHashMap<>(16, 0.75f, true);
    private boolean stopped;

    /**
     * @param stage runs a task on the protocol stage; {@code false} when it cannot take it now
     */
    ObservationMatcher(ObservationStore store, ExchangeStore exchanges, Configuration config, Predicate<Runnable> stage,
            Clock clock) {
        this.store = store;
        this.exchanges = exchanges;
        this.stage = stage;
        this.clock = clock;
        this.maxLookups = config.get(CoapConfig.OBSERVE_STORE_LOOKUPS);
        this.maxLookupsPerSource = config.get(CoapConfig.OBSERVE_STORE_LOOKUPS_PER_SOURCE);
        this.maxAdopted = config.get(CoapConfig.OBSERVE_STORE_MAX_ADOPTED);
    }

    ObservationStore store() {
        return store;
    }

    /** Gauges {@code observe.store_lookups}, {@code ..._hits}, {@code ..._dropped}, {@code ..._errors}, {@code observe.adopted}. */
    void register(EndpointCounters counters) {
        counters.gauge("observe.store_lookups", lookups::sum);
        counters.gauge("observe.store_hits", hits::sum);
        counters.gauge("observe.store_dropped", dropped::sum);
        counters.gauge("observe.store_errors", storeErrors::sum);
        counters.gauge("observe.adopted", this::adoptedCount);
    }

    void addListener(NotificationListener listener) {
        listeners.add(listener);
    }

    void removeListener(NotificationListener listener) {
        listeners.remove(listener);
    }

    synchronized int adoptedCount() {
        return adopted.size();
    }

    // ------------------------------------------------------------------ our own observations

    /** An adopted observation ended (the server's final notification): forget it in the store. */
    void ended(Token token) {
        store.remove(token).whenComplete((v, t) -> failed("remove", token, t));
    }

    // ------------------------------------------------------------------ notifications of others

    /**
     * A CON or NON response matched no exchange: looks its token up unless a budget is spent.
     * {@code redeliver} runs on the protocol stage once the observation is adopted (the response
     * then matches); {@code miss} when the store does not know the token.
     */
    void lookUp(Response response, Consumer<Response> redeliver, Miss miss) {
        Source source = Source.of(response.peer().peer());
        synchronized (this) {
            int perSource = pendingPerSource.getOrDefault(source, 0);
            if (pending >= maxLookups || perSource >= maxLookupsPerSource) {
                dropped.increment();
                return;
            }
            pending++;
            pendingPerSource.put(source, perSource + 1);
        }
        lookups.increment();
        Token token = response.token();
        store.get(token).whenComplete((observation, failure) -> {
            release(source);
            if (failure != null) {
                // The store is down or slow: no RST, which would end a real observation at the
                // server (RFC 7641 §3.6); a CON notification comes back with its retransmission.
                failed("look up", token, failure);
                dropped.increment();
                return;
            }
            boolean taken = stage.test(() -> {
                if (observation != null && adopt(observation, response.peer())) {
                    hits.increment();
                    redeliver.accept(response);
                } else {
                    miss.unmatched(response);
                }
            });
            if (!taken) {
                dropped.increment(); // the stage is full or stopped: the CON retransmission comes back
            }
        });
    }

    /** Adopts every observation the store gives back for this node (after a restart). */
    void restore() {
        store.restore().whenComplete((list, failure) -> {
            if (failure != null) {
                failed("restore", Token.EMPTY, failure);
                return;
            }
            int n = 0;
            for (Observation o : list) {
                if (adopt(o, EndpointContext.of(o.peer()))) {
                    n++;
                }
            }
            LOG.info("restored {} of {} observations from the store", n, list.size());
        });
    }

    /**
     * Ends every adopted exchange and adopts nothing more: the endpoint stops (a lookup or a restore
     * that completes later must not register exchanges in a stopped endpoint). The store keeps the
     * observations.
     */
    void stop() {
        List<Exchange> all;
        synchronized (this) {
            stopped = true;
            all = List.copyOf(adopted.values());
            adopted.clear();
        }
        all.forEach(e -> e.execute(e::complete));
    }

    /**
     * Registers a client exchange for {@code observation} under its token and {@code peer}.
     *
     * @return whether an exchange now waits for the observation's notifications from {@code peer}
     *         (false once stopped)
     */
    private boolean adopt(Observation observation, EndpointContext peer) {
        synchronized (this) {
            if (stopped) {
                return false;
            }
        }
        Token token = observation.token();
        Request request = observation.request().withPeer(peer);
        Adopted listener = new Adopted(observation);
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, request, peer, clock.nanoTime(), listener);
        boolean[] registered = {false};
        exchange.execute(() -> registered[0] = exchanges.registerToken(exchange, token));
        if (!registered[0]) {
            return exchanges.findByToken(peer.peer(), token) != null;
        }
        Exchange evicted = null;
        boolean late;
        synchronized (this) {
            late = stopped; // stopped while registering: stop() did not see this one
            Exchange previous = late ? null : adopted.put(token, exchange);
            if (previous != null && previous != exchange) {
                evicted = previous; // the same observation, now at another address
            } else if (adopted.size() > maxAdopted) {
                Map.Entry<Token, Exchange> eldest = adopted.entrySet().iterator().next();
                adopted.remove(eldest.getKey());
                evicted = eldest.getValue();
            }
        }
        if (late) {
            exchange.execute(exchange::complete); // outside this monitor: lock order is exchange, then this
            return false;
        }
        exchange.whenComplete(() -> forget(token, exchange));
        if (evicted != null) {
            Exchange e = evicted;
            e.execute(e::complete);
        }
        return true;
    }

    private synchronized void forget(Token token, Exchange exchange) {
        adopted.remove(token, exchange);
    }

    private synchronized void release(Source source) {
        pending--;
        pendingPerSource.computeIfPresent(source, (s, n) -> n <= 1 ? null : n - 1);
    }

    private synchronized void touch(Token token) {
        adopted.get(token); // access order: the least recently notified goes first
    }

    private void failed(String what, Token token, Throwable t) {
        if (t != null) {
            storeErrors.increment();
            LOG.warn("observation store: {} {} failed: {}", what, token, SafeText.forLog(t.toString()));
        }
    }

    /** The listener of an adopted observation's exchange: freshness, delivery, the end. */
    private final class Adopted implements Exchange.Listener {
        private final Observation observation;
        private int lastSeq = -1; // guarded by the exchange: deliveries run holding it
        private long lastNanos;

        Adopted(Observation observation) {
            this.observation = observation;
        }

        @Override
        public void onResponse(Exchange exchange, Response response) {
            int seq = response.options().observe();
            boolean last = !response.code().isSuccess() || seq < 0;
            if (!last) {
                long now = clock.nanoTime();
                if (lastSeq >= 0 && !ObserveSequence.isFresh(lastSeq, lastNanos, seq, now)) {
                    return; // older than one delivered (RFC 7641 §3.4)
                }
                lastSeq = seq;
                lastNanos = now;
                touch(observation.token());
            }
            for (NotificationListener l : listeners) {
                try {
                    l.onNotification(observation, response);
                } catch (RuntimeException e) {
                    LOG.warn("a notification listener threw: {}", SafeText.forLog(e.toString()));
                }
            }
            if (last) {
                ended(observation.token()); // the server ended it (RFC 7641 §3.2)
                exchange.complete();
            }
        }

        @Override
        public void onFailure(Exchange exchange, Throwable cause) {
            // evicted or the endpoint stopped: the store keeps the observation
        }
    }
}
