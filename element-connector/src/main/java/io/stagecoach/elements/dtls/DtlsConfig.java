package io.stagecoach.elements.dtls;

import io.stagecoach.elements.config.Definition;
import io.stagecoach.elements.config.ModuleDefinitions;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Settings of the DTLS connector (group "DTLS connector"), keys {@code dtls.*}. These are the
 * single source of defaults: {@link DtlsConnectorConfig.Builder} starts from them and
 * {@link DtlsConnectorConfig.Builder#apply} reads them from a
 * {@link io.stagecoach.elements.config.Configuration}. Credentials are not keys: they are set on
 * the builder in code.
 *
 * <p>This class loads no BouncyCastle class, so a configuration registry may list
 * {@link #DEFINITIONS} without BouncyCastle on the class path.
 */
public final class DtlsConfig {

    private DtlsConfig() {
    }

    public static final Definition<Integer> RECEIVER_THREADS = Definition.integer("dtls.receiver-threads")
            .defaultValue(1).range(1, 64)
            .doc("Threads that read datagrams from the DTLS socket and decrypt records of established"
                    + " sessions in place (no hand-off). Handshakes run on dtls.handshake-threads instead.")
            .build();

    public static final Definition<Integer> HANDSHAKE_THREADS = Definition.integer("dtls.handshake-threads")
            .defaultValue(2).range(1, 256)
            .doc("Handshake threads kept ready. BouncyCastle blocks a thread per handshake while it waits for"
                    + " the peer's next flight, so the pool grows on demand to one thread per handshake in progress"
                    + " (at most dtls.max-handshakes) and shrinks after 30 s idle; no admitted handshake waits for"
                    + " a thread behind abandoned ones. Established sessions cost no thread.")
            .build();

    public static final Definition<Integer> MAX_HANDSHAKES = Definition.integer("dtls.max-handshakes")
            .defaultValue(256).range(1, 1_000_000).unit("handshakes")
            .doc("Handshakes in progress at once (running or waiting for a handshake thread), counted after"
                    + " the peer returned a valid cookie; a ClientHello beyond the limit is dropped.")
            .build();

    public static final Definition<Integer> MAX_HANDSHAKES_PER_SOURCE = Definition.integer(
            "dtls.max-handshakes-per-source")
            .defaultValue(4).range(1, 1_000_000).unit("handshakes")
            .doc("Handshakes in progress at once from one source (an IPv4 address or an IPv6 /64, any port),"
                    + " so that one host cannot take every handshake slot.")
            .build();

    public static final Definition<Integer> MAX_HELLO_RATE = Definition.integer("dtls.max-hello-rate")
            .defaultValue(20_000).range(1, 10_000_000).unit("ClientHellos/s")
            .doc("ClientHellos per second that get a cookie check (and, without a valid cookie, a"
                    + " HelloVerifyRequest), in total; beyond it they are dropped before any work, so that a flood"
                    + " of them costs established sessions little. Bursts of one second's worth pass.")
            .build();

    public static final Definition<Integer> MAX_HELLO_RATE_PER_SOURCE = Definition.integer(
            "dtls.max-hello-rate-per-source")
            .defaultValue(2_000).range(1, 10_000_000).unit("ClientHellos/s")
            .doc("ClientHellos per second that get a cookie check from one source (an IPv4 address or an IPv6"
                    + " /64); sources share 4096 buckets by hash, so spoofed sources cannot grow any table.")
            .build();

    public static final Definition<Duration> HANDSHAKE_TIMEOUT = Definition.duration("dtls.handshake-timeout",
            ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(30)).range(Duration.ofMillis(100), Duration.ofMinutes(10))
            .doc("A handshake not finished this long after it was admitted is abandoned and its slot freed.")
            .build();

    public static final Definition<Duration> RETRANSMISSION_TIMEOUT = Definition.duration(
            "dtls.retransmission-initial-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(1)).range(Duration.ofMillis(10), Duration.ofMinutes(1))
            .doc("Initial timer for retransmitting a handshake flight, doubled on each retransmission"
                    + " (RFC 6347 §4.2.4.1 recommends 1s).")
            .build();

    public static final Definition<Integer> MAX_SESSIONS = Definition.integer("dtls.max-sessions")
            .defaultValue(100_000).range(1, 10_000_000).unit("sessions")
            .doc("Established sessions kept at once; a new one beyond the limit evicts the least recently"
                    + " used session.")
            .build();

    public static final Definition<Duration> SESSION_IDLE_TIMEOUT = Definition.duration(
            "dtls.session-idle-timeout", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofMinutes(30)).range(Duration.ofSeconds(1), Duration.ofDays(30))
            .doc("A session that received no authenticated record for this long is dropped silently (its"
                    + " peer may be gone; no close_notify is sent). The resumption cache keeps it longer.")
            .build();

    public static final Definition<Integer> RESUMPTION_CACHE_SIZE = Definition.integer(
            "dtls.resumption-cache-size")
            .defaultValue(10_000).range(0, 10_000_000).unit("sessions")
            .doc("Session states kept for abbreviated handshakes (RFC 5246 session resumption); 0 turns"
                    + " resumption off. Least recently stored entries go first.")
            .build();

    public static final Definition<Integer> CID_LENGTH = Definition.integer("dtls.cid-length")
            .defaultValue(6).range(0, 32).unit("bytes")
            .doc("Length of the connection IDs (RFC 9146) this side asks the peer to put in its records;"
                    + " with them a session survives the peer's address or port changing. 0 turns connection"
                    + " IDs off.")
            .build();

    public static final Definition<Integer> NODE_ID = Definition.integer("dtls.node-id")
            .defaultValue(0).range(0, 255)
            .doc("When 1..255, the first byte of every connection ID this node issues, so a load balancer"
                    + " can route records to the node that holds the session; 0 makes the whole ID random.")
            .build();

    public static final Definition<Integer> MAX_DATAGRAM_SIZE = Definition.size("dtls.max-datagram-size")
            .defaultValue(2048).range(64, 65_507)
            .doc("Largest datagram received; longer ones are dropped.")
            .build();

    public static final Definition<Integer> MAX_RECORD_SIZE = Definition.size("dtls.max-record-size")
            .defaultValue(1232).range(256, 16_384 + 2048)
            .doc("Largest datagram sent: handshake messages are fragmented to fit and application data"
                    + " beyond it is refused. 1232 is the IPv6 minimum MTU less the IP and UDP headers.")
            .build();

    public static final Definition<Integer> OUTBOUND_QUEUE_CAPACITY = Definition.integer(
            "dtls.handshake-queue-capacity")
            .defaultValue(32).range(1, 100_000).unit("datagrams")
            .doc("Client side: datagrams held per peer while the handshake to it runs; further sends fail"
                    + " with QUEUE_FULL.")
            .build();

    public static final Definition<Integer> RECEIVE_BUFFER = Definition.size("dtls.receive-buffer")
            .defaultValue(4 * 1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_RCVBUF requested for the DTLS socket (capped by net.core.rmem_max); 0 keeps the OS"
                    + " default.")
            .build();

    public static final Definition<Integer> SEND_BUFFER = Definition.size("dtls.send-buffer")
            .defaultValue(1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_SNDBUF requested for the DTLS socket (capped by net.core.wmem_max); 0 keeps the OS"
                    + " default.")
            .build();

    /** All DTLS connector definitions. */
    public static final ModuleDefinitions DEFINITIONS = ModuleDefinitions.of("DTLS connector",
            "DTLS 1.2 with connection IDs on BouncyCastle (package `io.stagecoach.elements.dtls`).",
            RECEIVER_THREADS, HANDSHAKE_THREADS, MAX_HANDSHAKES, MAX_HANDSHAKES_PER_SOURCE, MAX_HELLO_RATE,
            MAX_HELLO_RATE_PER_SOURCE, HANDSHAKE_TIMEOUT,
            RETRANSMISSION_TIMEOUT, MAX_SESSIONS, SESSION_IDLE_TIMEOUT, RESUMPTION_CACHE_SIZE, CID_LENGTH, NODE_ID,
            MAX_DATAGRAM_SIZE, MAX_RECORD_SIZE, OUTBOUND_QUEUE_CAPACITY, RECEIVE_BUFFER, SEND_BUFFER);
}
