package io.stagecoach.core.config;

import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.Definition;
import io.stagecoach.elements.config.Definitions;
import io.stagecoach.elements.config.ModuleDefinitions;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.dtls.DtlsConfig;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Settings of the CoAP protocol stage, server and client (group "CoAP"), and the entry point to a
 * {@link Configuration} of every Stagecoach setting: {@link #defaults()}, or
 * {@link #builder()} to load a properties file, apply system properties and set values in code.
 * Read them with {@code configuration.get(CoapConfig.ACK_TIMEOUT)}, which returns a {@link Duration}.
 *
 * <p>The transmission parameters use the names and defaults of RFC 7252 §4.8. EXCHANGE_LIFETIME
 * and NON_LIFETIME are derived from them in §4.8.2 but are plain settings here with the RFC's
 * results as defaults: change them together with the parameters they derive from.
 */
public final class CoapConfig {

    private CoapConfig() {
    }

    // --- Transmission parameters, RFC 7252 §4.7-4.8 ---

    public static final Definition<Duration> ACK_TIMEOUT = Definition.duration("coap.ack-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(2)).range(Duration.ofMillis(1), Duration.ofMinutes(5))
            .doc("ACK_TIMEOUT: lower bound of the initial retransmission timeout (RFC 7252 §4.8).")
            .build();

    public static final Definition<Double> ACK_RANDOM_FACTOR = Definition.decimal("coap.ack-random-factor")
            .defaultValue(1.5).range(1.0, 10.0)
            .doc("ACK_RANDOM_FACTOR: the initial timeout is random in [ACK_TIMEOUT, ACK_TIMEOUT ×"
                    + " factor]; must not be below 1.0 (RFC 7252 §4.8).")
            .build();

    public static final Definition<Integer> MAX_RETRANSMIT = Definition.integer("coap.max-retransmit")
            .defaultValue(4).range(0, 20)
            .doc("MAX_RETRANSMIT: retransmissions of a Confirmable message before giving up (RFC 7252 §4.8).")
            .build();

    public static final Definition<Integer> NSTART = Definition.integer("coap.nstart")
            .defaultValue(1).range(1, 1000)
            .doc("NSTART: outstanding interactions a client may have with one server (RFC 7252 §4.7).")
            .build();

    public static final Definition<Duration> EXCHANGE_LIFETIME = Definition.duration("coap.exchange-lifetime", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(247)).range(Duration.ofSeconds(1), Duration.ofHours(24))
            .doc("EXCHANGE_LIFETIME: how long a Confirmable message ID stays in use and duplicates are"
                    + " detected. RFC 7252 §4.8.2 derives 247s from the defaults; not recomputed here.")
            .build();

    public static final Definition<Duration> NON_LIFETIME = Definition.duration("coap.non-lifetime", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(145)).range(Duration.ofSeconds(1), Duration.ofHours(24))
            .doc("NON_LIFETIME: the same for Non-confirmable messages. RFC 7252 §4.8.2 derives 145s"
                    + " from the defaults; not recomputed here.")
            .build();

    public static final Definition<Duration> MAX_RTO = Definition.duration("coap.max-rto", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(60)).range(Duration.ofSeconds(1), Duration.ofHours(1))
            .doc("Upper bound of a backed-off retransmission timeout; Järvinen et al. 2018 bound it"
                    + " to 60s so that retained (full-backoff) timeouts cannot grow without limit.")
            .build();

    public static final Definition<CongestionControlMode> CONGESTION_CONTROL = Definition
            .enumeration("coap.congestion-control", CongestionControlMode.class)
            .defaultValue(CongestionControlMode.DEFAULT)
            .doc("Retransmission timeout algorithm: RFC 7252 §4.2 (DEFAULT), CoCoA, or the full-backoff"
                    + " variants of Järvinen et al. 2018 §4.2.")
            .build();

    public static final Definition<Integer> CONGESTION_PEER_CAPACITY = Definition.integer("coap.congestion.peer-capacity")
            .defaultValue(10_000).range(1, 10_000_000).unit("peers")
            .doc("Peers whose RTO state (estimators, backed-off RTO) is kept; the least recently used is forgotten.")
            .build();

    // --- Messages and exchanges ---

    public static final Definition<Duration> SEPARATE_ACK_DELAY = Definition.duration("coap.separate-ack-delay", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofMillis(200)).max(Duration.ofSeconds(2))
            .doc("How long a server waits for the response to piggyback on the ACK before it sends an"
                    + " empty ACK and a separate response (RFC 7252 §5.2.2). Far below ACK_TIMEOUT, so"
                    + " the client does not retransmit; 0 acknowledges at once.")
            .build();

    public static final Definition<Integer> SEPARATE_MAX_PENDING = Definition.integer("coap.separate.max-pending")
            .defaultValue(10_000).range(1, 10_000_000).unit("requests")
            .doc("Requests whose handler returned without answering (a separate response follows) an"
                    + " endpoint keeps at once; beyond it a new one is answered 5.03 with Max-Age and its"
                    + " handler's late answer dropped. Handlers on a resource executor count while queued.")
            .build();

    public static final Definition<Integer> SEPARATE_MAX_PENDING_PER_SOURCE = Definition.integer("coap.separate.max-pending-per-source")
            .defaultValue(1_000).range(1, 10_000_000).unit("requests")
            .doc("The same per source (IPv4 address or IPv6 /64): one host rotating ports cannot hold the"
                    + " endpoint's whole budget of pending separate responses.")
            .build();

    public static final Definition<Integer> TOKEN_LENGTH = Definition.integer("coap.token-length")
            .defaultValue(8).range(0, 8).unit("bytes")
            .doc("Length of the random tokens this endpoint generates for requests (RFC 7252 §5.3.1).")
            .build();

    public static final Definition<Integer> MID_MAX_PEERS = Definition.integer("coap.mid.max-peers")
            .defaultValue(100_000).range(1, 10_000_000).unit("peers")
            .doc("Peers whose Message ID counter is kept (RFC 7252 §4.4); a forgotten peer restarts at a random MID.")
            .build();

    public static final Definition<Integer> MID_MAX_PEERS_PER_SOURCE = Definition.integer("coap.mid.max-peers-per-source")
            .defaultValue(1_000).range(1, 10_000_000).unit("peers")
            .doc("Peers of one source (IPv4 address or IPv6 /64) whose Message ID counter is kept, so that"
                    + " one host rotating ports cannot take every slot of coap.mid.max-peers; a message to"
                    + " one more of its ports fails until an older counter expires.")
            .build();

    public static final Definition<Duration> OVERLOAD_MAX_AGE = Definition.duration("coap.overload-max-age", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(2)).max(Duration.ofHours(1))
            .doc("Max-Age of 5.03 Service Unavailable answers sent when a queue or table is full;"
                    + " tells the client when to retry (RFC 7252 §5.9.3.4).")
            .build();

    // --- Limits a peer cannot exceed (docs/reliability.md) ---

    public static final Definition<Integer> LIMIT_MAX_OPTIONS = Definition.integer("coap.limits.max-options")
            .defaultValue(64).range(1, 65_535).unit("options")
            .doc("Options one request may carry; a request with more is answered 4.00 Bad Request"
                    + " (RFC 7252 §5.9.2.1) and not processed.")
            .build();

    public static final Definition<Integer> LIMIT_MAX_OPTION_BYTES = Definition.size("coap.limits.max-option-bytes")
            .defaultValue(2048).range(16, 65_535)
            .doc("Total length of the option values of one request; more is answered 4.00 Bad"
                    + " Request. 2048 leaves room for a Proxy-Uri of 1034 bytes (RFC 7252 §5.10.2).")
            .build();

    public static final Definition<Integer> LIMIT_MAX_URI_PATH_SEGMENTS = Definition.integer("coap.limits.max-uri-path-segments")
            .defaultValue(16).range(1, 65_535).unit("segments")
            .doc("Uri-Path options one request may carry; a deeper path is answered 4.04 Not Found"
                    + " (RFC 7252 §5.9.2.5) without walking the resource tree. Keep it at least as deep"
                    + " as the deepest resource.")
            .build();

    public static final Definition<Integer> OBSERVE_MAX_OBSERVERS_PER_SOURCE = Definition.integer("coap.observe.max-observers-per-source")
            .defaultValue(100).range(1, 100_000_000).unit("observers")
            .doc("Observe relations one source (IPv4 address or IPv6 /64, whatever its ports) may hold;"
                    + " a further registration is served as a plain GET, without Observe (RFC 7641 §4.1).")
            .build();

    // --- Amplification, RFC 7252 §11.3, RFC 9175 §2.4 ---

    public static final Definition<Integer> AMPLIFICATION_FACTOR = Definition.integer("coap.amplification.factor")
            .defaultValue(3).range(0, 1000)
            .doc("To an address not verified, an endpoint sends at most this many bytes per byte of the"
                    + " request (RFC 7252 §11.3); a larger answer becomes a smaller first block or a 4.01"
                    + " with an Echo challenge (RFC 9175 §2.4). 0 turns the limit off.")
            .build();

    public static final Definition<Duration> AMPLIFICATION_VERIFIED_LIFETIME = Definition.duration("coap.amplification.verified-lifetime", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofMinutes(10)).range(Duration.ofSeconds(1), Duration.ofDays(1))
            .doc("How long an address stays verified after it returned an Echo value or acknowledged one"
                    + " of our Confirmable messages.")
            .build();

    public static final Definition<Integer> AMPLIFICATION_MAX_VERIFIED = Definition.integer("coap.amplification.max-verified")
            .defaultValue(100_000).range(1, 100_000_000).unit("addresses")
            .doc("Verified addresses remembered; the least recently verified is forgotten first (it is then"
                    + " challenged again).")
            .build();

    public static final Definition<Duration> ECHO_LIFETIME = Definition.duration("coap.echo.lifetime", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(30)).range(Duration.ofSeconds(1), Duration.ofHours(1))
            .doc("How long an Echo value this endpoint issued is accepted (RFC 9175 §2.2).")
            .build();

    // --- Deduplication, RFC 7252 §4.5 ---

    public static final Definition<DeduplicationMode> DEDUPLICATION_MODE = Definition
            .enumeration("coap.dedup.mode", DeduplicationMode.class)
            .defaultValue(DeduplicationMode.IDEMPOTENT_RELAXED)
            .doc("Which duplicates are answered from stored responses (RFC 7252 §4.5); IDEMPOTENT_RELAXED"
                    + " re-processes duplicates of idempotent requests.")
            .build();

    public static final Definition<Integer> DEDUP_MAX_ENTRIES = Definition.integer("coap.dedup.max-entries")
            .defaultValue(dedupEntriesForHalfTheHeap(Runtime.getRuntime().maxMemory()),
                    "half the maximum heap at 72 bytes per entry (1.80 to 1.86 million with -Xmx256m), 10,000..100,000,000")
            .range(1, 100_000_000).unit("exchanges")
            .doc("Exchanges remembered for duplicate detection in total; beyond it new requests are answered"
                    + " 5.03. An IPv4 entry with a 20-byte reply takes about 73 bytes (docs/benchmarks/dedup.md),"
                    + " so the default keeps a full store within about half the heap; with STRICT it sustains"
                    + " max-entries / EXCHANGE_LIFETIME new requests per second.")
            .build();

    public static final Definition<Long> DEDUP_MAX_BYTES = Definition.longInteger("coap.dedup.max-bytes")
            .defaultValue(Runtime.getRuntime().maxMemory() / 2, "half the maximum heap")
            .range(1024L, Long.MAX_VALUE).unit("bytes")
            .doc("Estimated heap the deduplication entries and their stored replies may hold; beyond it new"
                    + " requests are answered 5.03. Caps what max-entries cannot: IPv6 peers (about 128 bytes an"
                    + " entry) and large replies (stored whole).")
            .build();

    public static final Definition<Integer> DEDUP_MAX_ENTRIES_PER_SOURCE = Definition.integer("coap.dedup.max-entries-per-source")
            .defaultValue(100_000).range(1, 100_000_000).unit("exchanges")
            .doc("Exchanges remembered per source (IPv4 address or IPv6 /64, whatever its ports), so"
                    + " that one host cannot fill the whole table; beyond it the source's new requests are"
                    + " answered 5.03. When the whole table is full, its heaviest source gives up its oldest"
                    + " entries instead (docs/security.md).")
            .build();

    public static final Definition<Duration> DEDUP_SWEEP_INTERVAL = Definition.duration("coap.dedup.sweep-interval", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(10)).range(Duration.ofMillis(10), Duration.ofHours(1))
            .doc("Period of the sweep that drops expired entries; one periodic task rather than a timer"
                    + " per exchange (Lanter 2013 §5.4). Entries live up to this much past their lifetime.")
            .build();

    // --- Protocol stage threads ---

    public static final Definition<Integer> PROTOCOL_THREADS = Definition.integer("coap.protocol-threads")
            .defaultValue(defaultProtocolThreads(Runtime.getRuntime().availableProcessors()),
                    "number of available processors; 0 (inline) when only one is available")
            .range(0, 1024)
            .doc("Threads of the protocol stage; 0 runs the protocol inline on the connector's receive"
                    + " thread, saving a hand-off when handlers are fast. On one core a pool adds two context"
                    + " switches per request and no parallelism, so the default there is inline"
                    + " (docs/benchmarks.md).")
            .build();

    public static final Definition<Integer> PROTOCOL_QUEUE_CAPACITY = Definition.integer("coap.protocol-queue-capacity")
            .defaultValue(16_384).range(1, 10_000_000).unit("messages")
            .doc("Inbound messages waiting for a protocol thread; when full, a CON request is answered 5.03 with Max-Age from its header alone and anything else is dropped (counted).")
            .build();

    // --- Block-wise transfers, RFC 7959 ---

    public static final Definition<Integer> BLOCKWISE_PREFERRED_BLOCK_SIZE = Definition.size("coap.blockwise.preferred-block-size")
            .defaultValue(512).range(16, 1024).check(v -> Integer.bitCount(v) == 1, "a power of two")
            .doc("Block size this endpoint asks for and sends (SZX, RFC 7959 §2.2).")
            .build();

    public static final Definition<Integer> BLOCKWISE_MAX_MESSAGE_SIZE = Definition.size("coap.blockwise.max-message-size")
            .defaultValue(1024).range(16, 65_507)
            .doc("Payloads larger than this are sent block-wise (RFC 7959 §2); 1024 is the payload"
                    + " limit of RFC 7252 §4.6.")
            .build();

    public static final Definition<Integer> BLOCKWISE_MAX_RESOURCE_BODY_SIZE = Definition.size("coap.blockwise.max-resource-body-size")
            .defaultValue(8192).max(1024 * 1024 * 1024)
            .doc("Largest body reassembled from blocks; a larger request is answered 4.13 Request"
                    + " Entity Too Large (RFC 7959 §2.9.3).")
            .build();

    public static final Definition<Duration> BLOCKWISE_STATUS_LIFETIME = Definition.duration("coap.blockwise.status-lifetime", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofMinutes(5)).range(Duration.ofSeconds(1), Duration.ofHours(24))
            .doc("An unfinished transfer idle this long is discarded. RFC 7959 leaves it open; 300s"
                    + " (Californium's value) exceeds EXCHANGE_LIFETIME, so retransmitted blocks still match.")
            .build();

    public static final Definition<Integer> BLOCKWISE_MAX_TRANSFERS_PER_SOURCE = Definition.integer("coap.blockwise.max-transfers-per-source")
            .defaultValue(10).range(1, 10_000).unit("transfers")
            .doc("Concurrent block-wise transfers per source (IPv4 address or IPv6 /64); one more upload"
                    + " is answered 5.03, one more cached download evicts the source's least recently used one.")
            .build();

    public static final Definition<Integer> BLOCKWISE_MAX_TRANSFERS = Definition.integer("coap.blockwise.max-transfers")
            .defaultValue(1000).range(1, 10_000_000).unit("transfers")
            .doc("Block-wise transfers a server endpoint keeps state for, over all sources; one more evicts"
                    + " the least recently used.")
            .build();

    public static final Definition<Long> BLOCKWISE_MAX_BYTES = Definition.longInteger("coap.blockwise.max-bytes")
            .defaultValue(16L * 1024 * 1024).range(1024L, Long.MAX_VALUE).unit("bytes")
            .doc("Bytes of bodies the server's block-wise transfers may hold in all (uploads being"
                    + " reassembled, representations cached for Block2 follow-ups); beyond it the least"
                    + " recently used transfers are dropped.")
            .build();

    // --- Observe, RFC 7641 ---

    public static final Definition<Duration> OBSERVE_CON_INTERVAL = Definition.duration("coap.observe.notification-con-interval", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofHours(24)).range(Duration.ofSeconds(1), Duration.ofHours(24))
            .doc("A notification is sent Confirmable at least this often, to learn whether the"
                    + " observer is still there (RFC 7641 §4.5: at least every 24 hours).")
            .build();

    public static final Definition<Integer> OBSERVE_MAX_NON = Definition.integer("coap.observe.max-non-notifications")
            .defaultValue(5).range(0, 1_000_000).unit("notifications")
            .doc("Non-confirmable notifications a relation sends at most between two confirmable ones"
                    + " (RFC 7641 §4.5; 5, as libcoap); 0 makes all of them confirmable. A relation whose"
                    + " confirmable notification goes unacknowledged ends.")
            .build();

    public static final Definition<Integer> OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT = Definition.integer("coap.observe.max-notifications-in-flight")
            .defaultValue(1024).range(1, 10_000_000).unit("datagrams")
            .doc("Notification datagrams an endpoint has handed to its connector and not yet seen sent,"
                    + " so a burst of notifications cannot crowd other traffic out of the connector's"
                    + " outbound queue. Further notifications wait in the endpoint, in order, and go out as"
                    + " earlier ones are sent; when 64 times this many are waiting, a further one counts as"
                    + " lost (a confirmable one is retransmitted later).")
            .build();

    public static final Definition<Integer> OBSERVE_MAX_OBSERVERS_PER_RESOURCE = Definition.integer("coap.observe.max-observers-per-resource")
            .defaultValue(10_000).range(1, 100_000_000).unit("observers")
            .doc("Observers one resource accepts; further registrations get a response without Observe (RFC 7641 §4.1).")
            .build();

    public static final Definition<Integer> OBSERVE_MAX_OBSERVERS = Definition.integer("coap.observe.max-observers")
            .defaultValue(100_000).range(1, 100_000_000).unit("observers")
            .doc("Observers the whole server accepts, over all resources.")
            .build();

    public static final Definition<Integer> OBSERVE_STORE_LOOKUPS = Definition.integer("coap.observe.store-lookups")
            .defaultValue(256).range(1, 1_000_000).unit("lookups")
            .doc("With an observation store: notifications matching no exchange whose token is being looked up"
                    + " at once; one beyond is dropped silently (its CON retransmission comes back).")
            .build();

    public static final Definition<Integer> OBSERVE_STORE_LOOKUPS_PER_SOURCE = Definition.integer(
            "coap.observe.store-lookups-per-source")
            .defaultValue(16).range(1, 1_000_000).unit("lookups")
            .doc("The same per source (IPv4 address or IPv6 /64): one host sending responses with made-up"
                    + " tokens cannot take the whole lookup budget.")
            .build();

    public static final Definition<Integer> OBSERVE_STORE_MAX_ADOPTED = Definition.integer(
            "coap.observe.store-max-adopted")
            .defaultValue(100_000).range(1, 10_000_000).unit("observations")
            .doc("With an observation store: observations of other nodes (or restored ones) this endpoint"
                    + " receives notifications for; beyond, the least recently notified is forgotten here (the"
                    + " store keeps it).")
            .build();

    public static final Definition<Duration> OBSERVE_REREGISTRATION_MARGIN = Definition.duration("coap.observe.reregistration-margin", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(2)).max(Duration.ofHours(1))
            .doc("A client re-registers when no fresh notification arrived this long after the last"
                    + " one's Max-Age expired (RFC 7641 §3.3.1).")
            .build();

    // --- Server ---

    public static final Definition<Boolean> SERVER_ERROR_DIAGNOSTICS = Definition.bool("coap.server.error-diagnostics")
            .defaultValue(false)
            .doc("Whether the 5.00 answering a handler that threw carries \"ExceptionClass: message\" as its"
                    + " diagnostic payload (RFC 7252 §5.5.2). Off by default: the text may name internals or"
                    + " repeat a request's content; the failure is logged either way.")
            .build();

    // --- Client ---

    public static final Definition<Duration> CLIENT_TIMEOUT = Definition.duration("coap.client.timeout", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofSeconds(93)).range(Duration.ofMillis(1), Duration.ofHours(24))
            .doc("How long a client request waits for its response by default; 93s is MAX_TRANSMIT_WAIT"
                    + " (RFC 7252 §4.8.2).")
            .build();

    /** All CoAP definitions. */
    public static final ModuleDefinitions DEFINITIONS = ModuleDefinitions.of("CoAP",
            "The protocol stage, server and client (package `io.stagecoach.core`).",
            ACK_TIMEOUT, ACK_RANDOM_FACTOR, MAX_RETRANSMIT, NSTART,
            EXCHANGE_LIFETIME, NON_LIFETIME, MAX_RTO, CONGESTION_CONTROL, CONGESTION_PEER_CAPACITY,
            SEPARATE_ACK_DELAY, SEPARATE_MAX_PENDING, SEPARATE_MAX_PENDING_PER_SOURCE, TOKEN_LENGTH, MID_MAX_PEERS, MID_MAX_PEERS_PER_SOURCE, OVERLOAD_MAX_AGE,
            LIMIT_MAX_OPTIONS, LIMIT_MAX_OPTION_BYTES, LIMIT_MAX_URI_PATH_SEGMENTS,
            AMPLIFICATION_FACTOR, AMPLIFICATION_VERIFIED_LIFETIME, AMPLIFICATION_MAX_VERIFIED, ECHO_LIFETIME,
            DEDUPLICATION_MODE, DEDUP_MAX_ENTRIES, DEDUP_MAX_BYTES, DEDUP_MAX_ENTRIES_PER_SOURCE, DEDUP_SWEEP_INTERVAL,
            PROTOCOL_THREADS, PROTOCOL_QUEUE_CAPACITY,
            BLOCKWISE_PREFERRED_BLOCK_SIZE, BLOCKWISE_MAX_MESSAGE_SIZE, BLOCKWISE_MAX_RESOURCE_BODY_SIZE,
            BLOCKWISE_STATUS_LIFETIME, BLOCKWISE_MAX_TRANSFERS_PER_SOURCE, BLOCKWISE_MAX_TRANSFERS, BLOCKWISE_MAX_BYTES,
            OBSERVE_CON_INTERVAL, OBSERVE_MAX_NON, OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT, OBSERVE_MAX_OBSERVERS_PER_RESOURCE,
            OBSERVE_MAX_OBSERVERS, OBSERVE_MAX_OBSERVERS_PER_SOURCE, OBSERVE_REREGISTRATION_MARGIN,
            OBSERVE_STORE_LOOKUPS, OBSERVE_STORE_LOOKUPS_PER_SOURCE, OBSERVE_STORE_MAX_ADOPTED,
            SERVER_ERROR_DIAGNOSTICS, CLIENT_TIMEOUT);

    /**
     * Every group of settings the library reads, in documentation order: the UDP connectors'
     * ({@link UdpConfig}), the connection transports' ({@link TcpConfig}), the DTLS connector's
     * ({@link DtlsConfig}) and the CoAP stage's ({@link #DEFINITIONS}).
     */
    public static final Definitions ALL = Definitions.of(UdpConfig.DEFINITIONS, TcpConfig.DEFINITIONS,
            DtlsConfig.DEFINITIONS, DEFINITIONS);

    /** Every setting at its definition's default: what endpoints and servers use unless given one. */
    public static Configuration defaults() {
        return DEFAULTS;
    }

    /**
     * A builder that knows every setting ({@link #ALL}): {@code CoapConfig.builder().loadFile(path)
     * .applySystemProperties().set(CoapConfig.NSTART, 2).build()}.
     */
    public static Configuration.Builder builder() {
        return Configuration.builder(ALL);
    }

    private static final Configuration DEFAULTS = Configuration.builder(ALL).build();

    /**
     * Default of {@link #DEDUP_MAX_ENTRIES}: half of {@code maxHeapBytes} at 72 bytes per entry
     * (an IPv4 STRICT entry with a 20-byte reply measured 73 B), clamped to 10,000..100,000,000.
     * With -Xmx256m this is 1,864,135 entries under G1 and 1,802,240 under the serial
     * collector (whose maximum excludes a survivor space), i.e. 7,296 to 7,547 new STRICT requests
     * per second sustained over the 247 s EXCHANGE_LIFETIME.
     */
    static int dedupEntriesForHalfTheHeap(long maxHeapBytes) {
        long entries = maxHeapBytes / 2 / 72;
        return (int) Math.max(10_000, Math.min(100_000_000, entries));
    }

    /**
     * Default of {@link #PROTOCOL_THREADS}: one thread per core, except inline (0) on a single
     * core, where hand-offs between receive, protocol and send threads cost context switches and
     * buy no parallelism (measured in docs/benchmarks.md).
     */
    static int defaultProtocolThreads(int cores) {
        return cores <= 1 ? 0 : cores;
    }
}
