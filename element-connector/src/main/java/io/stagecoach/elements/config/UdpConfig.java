package io.stagecoach.elements.config;

/**
 * Settings of the UDP connectors (group "UDP connector"), read by the connector when it starts.
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
            .doc("Threads that read datagrams from one socket. 1 suits Linux, where one thread drains"
                    + " a socket faster than the protocol stage consumes; Lanter measured thread counts"
                    + " changing throughput by 2x either way, so benchmark to choose.")
            .build();

    public static final Definition<Integer> SENDER_THREADS = Definition.integer("udp.sender-threads")
            .defaultValue(1).range(1, 64)
            .doc("Threads that write queued datagrams to the socket.")
            .build();

    public static final Definition<Integer> OUTBOUND_QUEUE_CAPACITY = Definition.integer("udp.outbound-queue-capacity")
            .defaultValue(10_000).range(1, 10_000_000).unit("datagrams")
            .doc("Datagrams waiting for a sender thread; when full, further sends fail at once"
                    + " instead of building up latency.")
            .build();

    public static final Definition<Integer> RECEIVE_BUFFER = Definition.size("udp.receive-buffer")
            .defaultValue(4 * 1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_RCVBUF requested for the socket; it absorbs bursts while receiver threads are"
                    + " busy. Linux caps the request at net.core.rmem_max (often 208KiB), so raise that"
                    + " sysctl too. 0 keeps the OS default.")
            .build();

    public static final Definition<Integer> SEND_BUFFER = Definition.size("udp.send-buffer")
            .defaultValue(1024 * 1024).max(1024 * 1024 * 1024)
            .doc("SO_SNDBUF requested for the socket. Smaller than the receive buffer because the"
                    + " outbound queue already holds the backlog in user space; 1MiB still covers a"
                    + " burst of about 900 maximum-size messages. Capped at net.core.wmem_max; 0 keeps"
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
            .doc("Channels the Netty epoll connector binds to the same port with SO_REUSEPORT; the"
                    + " kernel spreads peers across them by address hash.")
            .build();

    /** All UDP connector definitions. */
    public static final ModuleDefinitions DEFINITIONS = ModuleDefinitions.of("UDP connector",
            "The network stage: sockets, their threads and buffers (package `io.stagecoach.elements`).",
            RECEIVER_THREADS, SENDER_THREADS, OUTBOUND_QUEUE_CAPACITY, RECEIVE_BUFFER, SEND_BUFFER,
            MAX_DATAGRAM_SIZE, NETTY_CHANNELS);
}
