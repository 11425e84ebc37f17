package io.stagecoach.elements.config;

/**
 * Which connector carries a UDP endpoint ({@code udp.connector}): the JDK's
 * {@code DatagramChannel} or Netty's native epoll transport.
 *
 * <p>The default follows a measurement (docs/benchmarks/physical-limit.md): on Linux the Netty
 * epoll connector, which reads and writes up to {@code udp.batch-size} datagrams per system call,
 * cost less server CPU per request at saturation and carried more requests per second than the
 * JDK connector in most of the alternating runs against the same load generator; the JDK
 * connector needs no native library and runs everywhere.
 */
public enum UdpConnectorChoice {

    /**
     * The Netty epoll connector when Netty's native epoll transport loads in this JVM (Linux with
     * {@code netty-transport-native-epoll} on the class path), else the JDK connector.
     */
    AUTO,

    /** The JDK connector ({@code UdpConnector}) on every platform. */
    JDK,

    /**
     * The Netty connector ({@code NettyUdpConnector}): epoll where
     * it loads, one NIO channel elsewhere; Netty must be on the class path.
     */
    NETTY
}
