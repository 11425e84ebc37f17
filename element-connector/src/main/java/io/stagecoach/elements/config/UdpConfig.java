package io.stagecoach.elements.config;

/**
 * Settings of the UDP connectors (group "UDP connector"): the one source of their defaults.
 * {@code UdpConnectorConfig.Builder.apply(Configuration)} reads them; the endpoint and server
 * builders apply their configuration to every UDP connector they create.
 *
 * <p>Thread and channel counts are starting points, not tuned values: Lanter (thesis, 2013)
 * measured that the thread count of a stage changes throughput by about a factor of two either
 * way, depending on hardware; benchmark before changing them.
 */
public final class UdpConfig {

    private UdpConfig() {
    }

    public static final Definition<Integer> RECEIVER_THREADS = Definition.integer("udp.receiver-threads")
            .defaultValue(1).range(1, 64)
            .doc("Threads of the JDK connector that read datagrams from its socket. 1 suits Linux, where one thread drains"
                    + " a socket faster than the protocol stage consumes; Lanter measured thread counts"
                    + " changing throughput by 2x either way, so benchmark to choose.")
            .build();

    public static final Definition<Integer> SENDER_THREADS = Definition.integer("udp.sender-threads")
            .defaultValue(1).range(1, 64)
            .doc("Threads that write queued datagrams to the socket.")
            .build();

    public static final Definition<Integer> OUTBOUND_QUEUE_CAPACITY = Definition.integer("udp.outbound-queue-capacity")
            .defaultValue(4096).range(1, 1 << 24).unit("datagrams")
            .doc("Datagrams waiting for a sender thread (JDK connector) or not yet written (Netty);"
                    + " when full, further sends fail at once instead of building up latency. 4096"
                    + " absorbs the bursts of a busy server and bounds memory (at most 8 MiB of 2 KiB"
                    + " datagrams); answers sent from a receive thread skip the queue.")
            .build();

    public static final Definition<Integer> RECEIVE_BUFFER = Definition.size("udp.receive-buffer")
            .defaultValue(4 * 1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_RCVBUF requested for the socket; it absorbs bursts while receiver threads are"
                    + " busy. Linux caps the request at net.core.rmem_max (often 208KiB), so raise that"
                    + " sysctl too. 0 keeps the OS default.")
            .build();

    public static final Definition<Integer> SEND_BUFFER = Definition.size("udp.send-buffer")
            .defaultValue(4 * 1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_SNDBUF requested for the socket; answers written directly from a receive thread"
                    + " wait here rather than in the outbound queue. Capped at net.core.wmem_max; 0 keeps"
                    + " the OS default.")
            .build();

    public static final Definition<Integer> MAX_DATAGRAM_SIZE = Definition.size("udp.max-datagram-size")
            .defaultValue(2048).range(64, 65_507)
            .doc("Size of the buffer each datagram is received into; longer datagrams are truncated"
                    + " and dropped. 2048 exceeds the 1152-byte message limit of RFC 7252 §4.6 and the"
                    + " 1280-byte IPv6 minimum MTU, leaving room for 1024-byte blocks (RFC 7959) with"
                    + " many options.")
            .build();

    public static final Definition<Integer> NETTY_CHANNELS = Definition.integer("udp.netty-channels")
            .defaultValue(Runtime.getRuntime().availableProcessors(), "number of available processors")
            .range(1, 256)
            .doc("Channels (each with its own event loop) the Netty connector binds to the same port"
                    + " with SO_REUSEPORT when native epoll is available; the kernel spreads peers across"
                    + " them by address hash. Without epoll one NIO channel is used.")
            .build();

    public static final Definition<Integer> BATCH_SIZE = Definition.integer("udp.batch-size")
            .defaultValue(64).range(1, 1024).unit("datagrams")
            .doc("Datagrams the Netty connector reads with one recvmmsg system call on epoll; the"
                    + " answers sent while such a batch is processed leave with one sendmmsg. 64, as"
                    + " the C echo that sets the ceiling, costs one buffer of 64 x (max-datagram-size"
                    + " + 1) bytes per read; 1 reads and writes one datagram per call.")
            .build();

    public static final Definition<UdpConnectorChoice> CONNECTOR = Definition
            .enumeration("udp.connector", UdpConnectorChoice.class)
            .defaultValue(UdpConnectorChoice.AUTO)
            .doc("Connector of a UDP endpoint created without naming one (CoapServer's default"
                    + " endpoint, udp(..) of the server and endpoint builders): AUTO is the Netty epoll"
                    + " connector where Netty's native epoll transport loads (Linux), else the JDK"
                    + " connector; JDK or NETTY force one. Chosen by measurement (alternating runs in"
                    + " docs/benchmarks/physical-limit.md): at saturation Netty's batched system calls"
                    + " cost less server CPU per request and carried more requests per second in most"
                    + " runs, at the price of a longer p99 at 1000 clients. Clients keep the JDK"
                    + " connector unless this key is set.")
            .build();

    /** All UDP connector definitions. */
    public static final ModuleDefinitions DEFINITIONS = ModuleDefinitions.of("UDP connector",
            "The network stage: sockets, their threads and buffers (package `io.stagecoach.elements`).",
            RECEIVER_THREADS, SENDER_THREADS, OUTBOUND_QUEUE_CAPACITY, RECEIVE_BUFFER, SEND_BUFFER,
            MAX_DATAGRAM_SIZE, NETTY_CHANNELS, BATCH_SIZE, CONNECTOR);
}
