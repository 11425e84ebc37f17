package io.stagecoach.elements.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Settings of the connection transports (group "TCP connector"): CoAP over TCP, TLS and
 * WebSockets (RFC 8323). The connector reads the connection limits, threads and timeouts of
 * its own; the endpoint reads the message size and the protocol timeouts, which it runs on its
 * scheduler (a virtual clock in tests).
 */
public final class TcpConfig {

    private TcpConfig() {
    }

    public static final Definition<Integer> MAX_CONNECTIONS = Definition.integer("tcp.max-connections")
            .defaultValue(10_000).range(1, 10_000_000).unit("connections")
            .doc("Connections a server connector keeps open at once; a connection beyond it is closed as"
                    + " soon as it is accepted, before any TLS or WebSocket handshake.")
            .build();

    public static final Definition<Integer> MAX_CONNECTIONS_PER_ADDRESS = Definition.integer("tcp.max-connections-per-address")
            .defaultValue(64).range(1, 10_000_000).unit("connections")
            .doc("Connections a server connector keeps open from one source IP address (devices behind"
                    + " one NAT share an address: raise it for such fleets; a load balancer in front"
                    + " needs it above its own connection count).")
            .build();

    public static final Definition<Integer> MAX_MESSAGE_SIZE = Definition.size("tcp.max-message-size")
            .defaultValue(8192).range(1152, 16 * 1024 * 1024)
            .doc("Largest message this endpoint receives, whole frame (RFC 8323 §5.3.1); announced as"
                    + " Max-Message-Size in the CSM. A larger frame is refused before its body is"
                    + " buffered (Abort, then close), so a connection buffers at most this much. Above"
                    + " 1152 it also enables BERT (RFC 8323 §6) with peers that announce Block-Wise-Transfer.")
            .build();

    public static final Definition<Duration> CSM_TIMEOUT = Definition.duration("tcp.csm-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(10)).range(Duration.ofMillis(1), Duration.ofHours(1))
            .doc("A connection whose peer sent no CSM (RFC 8323 §5.3, the first message) within this"
                    + " time after it opened is aborted.")
            .build();

    public static final Definition<Duration> FRAME_TIMEOUT = Definition.duration("tcp.frame-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(10)).range(Duration.ofMillis(1), Duration.ofHours(1))
            .doc("A frame that has started but is still incomplete after this time aborts the"
                    + " connection (a slowloris peer cannot hold buffers open).")
            .build();

    public static final Definition<Duration> IDLE_TIMEOUT = Definition.duration("tcp.idle-timeout", ChronoUnit.SECONDS)
            .defaultValue(Duration.ofMinutes(5)).range(Duration.ZERO, Duration.ofDays(7))
            .doc("A connection that carried no message for this long and has no exchange or observe"
                    + " relation open is released (Release, then close); 0 keeps idle connections open.")
            .build();

    public static final Definition<Duration> HANDSHAKE_TIMEOUT = Definition.duration("tcp.handshake-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(10)).range(Duration.ofMillis(1), Duration.ofHours(1))
            .doc("Time allowed to connect and to complete the TLS or WebSocket handshake of a connection.")
            .build();

    public static final Definition<Integer> WORKER_THREADS = Definition.integer("tcp.worker-threads")
            .defaultValue(Runtime.getRuntime().availableProcessors(), "number of available processors")
            .range(1, 256)
            .doc("I/O threads (event loops) of a connector; each connection stays on one of them, and the"
                    + " endpoint processes its messages there, in order, without a hand-off.")
            .build();

    public static final Definition<Integer> OUTBOUND_BUFFER = Definition.size("tcp.outbound-buffer")
            .defaultValue(1024 * 1024).range(4096, 1024 * 1024 * 1024)
            .doc("Bytes waiting to be written to one connection; a send beyond it fails at once (queue"
                    + " full) instead of buffering for a peer that does not read.")
            .build();

    public static final Definition<Boolean> FOLLOW_ALTERNATIVE_ADDRESS = Definition.bool("tcp.follow-alternative-address")
            .defaultValue(true)
            .doc("A client sends new requests for a server that released its connection with an"
                    + " Alternative-Address (RFC 8323 §5.5) to the first alternative that is an IP literal,"
                    + " on the same scheme; false keeps sending to the released address (after its Hold-Off).")
            .build();

    public static final Definition<Boolean> NATIVE_TRANSPORT = Definition.bool("tcp.native-transport")
            .defaultValue(true)
            .doc("Use Netty's native epoll transport where it is available (Linux with"
                    + " netty-transport-native-epoll on the class path), else the JDK's NIO; false forces NIO.")
            .build();

    // The default by measurement: io_uring made 1.14-1.36x epoll's requests at c=1000 in three
    // runs, level at c=100 (docs/benchmarks/tcp.md, runs 13 and 14).
    public static final Definition<Boolean> IO_URING = Definition.bool("tcp.io-uring")
            .defaultValue(true)
            .doc("With tcp.native-transport, use Netty's io_uring transport instead of epoll where it is"
                    + " available (Linux 5.14 or later with netty-transport-native-io_uring on the class path,"
                    + " io_uring not disabled by the kernel or a seccomp filter), else epoll or NIO as without it;"
                    + " false: epoll.")
            .build();

    /** All TCP connector definitions. */
    public static final ModuleDefinitions DEFINITIONS = ModuleDefinitions.of("TCP connector",
            "CoAP over TCP, TLS and WebSockets (RFC 8323): connections, their limits and timeouts"
                    + " (package `io.stagecoach.elements.tcp`, docs/transports.md).",
            MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, MAX_MESSAGE_SIZE, CSM_TIMEOUT, FRAME_TIMEOUT,
            IDLE_TIMEOUT, HANDSHAKE_TIMEOUT, WORKER_THREADS, OUTBOUND_BUFFER, NATIVE_TRANSPORT, IO_URING,
            FOLLOW_ALTERNATIVE_ADDRESS);
}
