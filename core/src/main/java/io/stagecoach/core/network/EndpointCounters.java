package io.stagecoach.core.network;

import io.stagecoach.core.coap.Type;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Per-endpoint statistics: cheap {@link LongAdder} counters that protocol threads bump without
 * contention, plus gauges (store sizes, queue depth) read on demand.
 *
 * <p>The endpoint's own counters are the {@link Counter} constants. Layers add theirs by name:
 * {@link #counter(String)} returns (creating it once) a named counter, {@link #gauge(String,
 * LongSupplier)} registers a named gauge; names are lower case words joined by {@code _} or
 * {@code .} (e.g. {@code seal.failures}) and share one name space with the built-in ones, which
 * {@link #snapshot()} lists first by their lower-case names.
 */
public final class EndpointCounters {

    /** What the endpoint itself counts. */
    public enum Counter {
        RECEIVED_CON, RECEIVED_NON, RECEIVED_ACK, RECEIVED_RST,
        SENT_CON, SENT_NON, SENT_ACK, SENT_RST,
        /** Duplicate messages recognised and answered from the deduplication store. */
        DUPLICATES,
        /** Retransmissions of CON messages this endpoint sent. */
        RETRANSMISSIONS,
        /** Exchanges that failed after the last retransmission. */
        TIMEOUTS,
        /** Datagrams refused by the parser (RST, 4.00 or silent drop). */
        MALFORMED,
        /** Datagrams silently dropped: version != 1. */
        IGNORED_VERSION,
        /** Requests with a critical option no part of the endpoint processes (4.02 to a CON). */
        BAD_OPTION,
        /** ACK/RST/responses that matched no exchange. */
        UNMATCHED,
        /** Requests refused with 5.03 because a store or queue was full. */
        REJECTED_OVERLOAD,
        /** Datagrams dropped because the protocol stage's queue was full. */
        DROPPED_QUEUE_FULL,
        /** Messages that could not be handed to the connector. */
        SEND_ERRORS,
        /**
         * Requests refused because they went over a limit a peer must not exceed: options, option
         * bytes, Uri-Path depth, block-wise body size or transfers per peer, observe relations per
         * peer.
         */
        LIMIT_EXCEEDED,
        /** Inbound requests on which a layer threw; answered 5.00 and ended. */
        STACK_ERRORS,
        /**
         * Answers to unverified addresses held to the amplification limit (RFC 7252 §11.3): replaced
         * by a 4.01 Echo challenge, or not sent.
         */
        AMPLIFICATION_LIMITED,
        /**
         * Notifications that waited for a place because their share of the connector's queue
         * ({@code coap.observe.max-notifications-in-flight}) was full; they are sent later.
         */
        NOTIFICATIONS_HELD,
        /** Notifications not sent because too many were waiting already: counted as lost. */
        NOTIFICATIONS_DROPPED,
        /**
         * Exchanges that followed their peer to a new address: a DTLS session with a connection ID
         * moved (RFC 9146 §6) while a separate response or an observe relation was open.
         */
        PEER_MOVED
    }

    /** What the endpoint and its standard layers report on demand. */
    public enum Gauge {
        EXCHANGES, DEDUP_ENTRIES, QUEUE_DEPTH,
        /** Block-wise transfers with state: server uploads and cached downloads, client transfers. */
        BLOCKWISE_TRANSFERS,
        /** Established server observe relations (RFC 7641). */
        OBSERVE_RELATIONS
    }

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*([._][a-z0-9]+)*");

    private final LongAdder[] adders = new LongAdder[Counter.values().length];
    private final Map<String, LongAdder> named = new ConcurrentHashMap<>();
    private final Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();

    public EndpointCounters() {
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
    }

    public void increment(Counter c) {
        adders[c.ordinal()].increment();
    }

    public long get(Counter c) {
        return adders[c.ordinal()].sum();
    }

    /** Counts a received message by its type. */
    public void received(Type type) {
        increment(RECEIVED[type.ordinal()]);
    }

    /** Counts a sent message by its type. */
    public void sent(Type type) {
        increment(SENT[type.ordinal()]);
    }

    /**
     * The counter named {@code name}, created at 0 on first use; keep the returned adder and
     * {@code increment()} it on the hot path.
     *
     * @throws IllegalArgumentException for a malformed name or the name of a built-in counter or
     *     of a gauge
     */
    public LongAdder counter(String name) {
        LongAdder adder = named.get(name);
        if (adder != null) {
            return adder;
        }
        checkFree(name, gauges);
        return named.computeIfAbsent(name, n -> new LongAdder());
    }

    /**
     * Registers (or replaces) the source of the gauge named {@code name}; a layer usually does
     * this in {@code Layer.start}.
     *
     * @throws IllegalArgumentException for a malformed name or the name of a counter
     */
    public void gauge(String name, LongSupplier source) {
        Objects.requireNonNull(source, "source");
        checkFree(name, named);
        gauges.put(name, source);
    }

    /** Registers the source of a standard gauge. */
    public void register(Gauge gauge, LongSupplier source) {
        gauges.put(lower(gauge), Objects.requireNonNull(source, "source"));
    }

    /** Current value of a standard gauge; 0 when nothing is registered for it. */
    public long get(Gauge gauge) {
        LongSupplier s = gauges.get(lower(gauge));
        return s == null ? 0 : s.getAsLong();
    }

    /** Current value of the counter or gauge named {@code name}; 0 when there is none. */
    public long get(String name) {
        LongAdder adder = named.get(name);
        if (adder != null) {
            return adder.sum();
        }
        LongSupplier s = gauges.get(name);
        if (s != null) {
            return s.getAsLong();
        }
        for (Counter c : Counter.values()) {
            if (lower(c).equals(name)) {
                return get(c);
            }
        }
        return 0;
    }

    /** Every counter and gauge by name: the built-in counters in declaration order, then the rest by name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            m.put(lower(c), get(c));
        }
        for (Gauge g : Gauge.values()) {
            m.put(lower(g), get(g));
        }
        new TreeMap<>(named).forEach((n, a) -> m.put(n, a.sum()));
        new TreeMap<>(gauges).forEach((n, s) -> m.putIfAbsent(n, s.getAsLong()));
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }

    private static void checkFree(String name, Map<String, ?> other) {
        if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
            throw new IllegalArgumentException("counter names are lower-case words joined by '.' or '_': '" + name + "'");
        }
        for (Counter c : Counter.values()) {
            if (lower(c).equals(name)) {
                throw new IllegalArgumentException("'" + name + "' is a built-in counter");
            }
        }
        if (other.containsKey(name)) {
            throw new IllegalArgumentException("'" + name + "' is taken by a counter or gauge of another kind");
        }
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static final Counter[] RECEIVED = {
        Counter.RECEIVED_CON, Counter.RECEIVED_NON, Counter.RECEIVED_ACK, Counter.RECEIVED_RST};
    private static final Counter[] SENT = {Counter.SENT_CON, Counter.SENT_NON, Counter.SENT_ACK, Counter.SENT_RST};
}
