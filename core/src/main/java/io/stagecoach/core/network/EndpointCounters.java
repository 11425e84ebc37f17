package io.stagecoach.core.network;

import io.stagecoach.core.coap.Type;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Per-endpoint statistics: cheap {@link LongAdder} counters that protocol threads bump without
 * contention, plus gauges (store sizes, queue depth) read on demand.
 */
public final class EndpointCounters {

    /** What is counted. */
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
        /** CON requests with an unrecognized critical option, answered 4.02. */
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
         * bytes, Uri-Path depth ({@link RequestLimits}), block-wise body size or transfers per peer,
         * observe relations per peer.
         */
        LIMIT_EXCEEDED,
        /** Inbound requests on which a layer threw; answered 5.00 and ended (see Inbound). */
        STACK_ERRORS
    }

    /** What is read on demand. */
    public enum Gauge {
        EXCHANGES, DEDUP_ENTRIES, QUEUE_DEPTH,
        /** Block-wise transfers with state: server uploads and cached downloads, client transfers. */
        BLOCKWISE_TRANSFERS,
        /** Established server observe relations (RFC 7641). */
        OBSERVE_RELATIONS
    }

    private final LongAdder[] adders = new LongAdder[Counter.values().length];
    private final Map<Gauge, LongSupplier> gauges = new EnumMap<>(Gauge.class);

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

    /** Registers the source of a gauge; the endpoint does this when it is built. */
    public synchronized void register(Gauge gauge, LongSupplier source) {
        gauges.put(gauge, source);
    }

    /** Current value of a gauge; 0 when nothing is registered for it. */
    public synchronized long get(Gauge gauge) {
        LongSupplier s = gauges.get(gauge);
        return s == null ? 0 : s.getAsLong();
    }

    /** Every counter and gauge by name, in declaration order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            m.put(c.name().toLowerCase(), get(c));
        }
        for (Gauge g : Gauge.values()) {
            m.put(g.name().toLowerCase(), get(g));
        }
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }

    private static final Counter[] RECEIVED = {
        Counter.RECEIVED_CON, Counter.RECEIVED_NON, Counter.RECEIVED_ACK, Counter.RECEIVED_RST};
    private static final Counter[] SENT = {Counter.SENT_CON, Counter.SENT_NON, Counter.SENT_ACK, Counter.SENT_RST};
}
