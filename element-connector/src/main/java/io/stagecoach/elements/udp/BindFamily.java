package io.stagecoach.elements.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * The address family a UDP connector opens its socket with: the family of the address it binds,
 * as libcoap does. An IPv4 address (including the IPv4 wildcard {@code 0.0.0.0}) gets an IPv4
 * socket, which serves IPv4 peers only; an IPv6 address gets an IPv6 socket, and the IPv6
 * wildcard {@code [::]} stays dual-stack (with Linux's default {@code net.ipv6.bindv6only=0}):
 * IPv4 peers arrive as IPv4-mapped addresses (RFC 4291 §2.5.5.2), which the connectors report as
 * plain IPv4 addresses.
 *
 * <p>Why not always an IPv6 socket, as {@code DatagramChannel.open()} does: every datagram of a
 * dual-stack socket, IPv4 ones too, goes through the kernel's IPv6 UDP functions first
 * ({@code udpv6_sendmsg}, {@code udpv6_recvmsg}): ~140 ns per request in a kernel profile of the
 * server at saturation (docs/benchmarks/physical-limit.md), which an IPv4 socket does not spend.
 *
 * <p>Note for Java callers: {@code new InetSocketAddress(port)} is the IPv4 wildcard
 * ({@code 0.0.0.0}) in a default JVM, so it binds an IPv4-only socket here, where the JDK's own
 * sockets (and Californium on them) would listen on {@code [::]}. "Every interface, IPv4 and IPv6"
 * is {@link #everyInterface(int)}, the default of every Stagecoach builder.
 */
public final class BindFamily {

    private BindFamily() {
    }

    /**
     * Every interface, IPv4 and IPv6: the IPv6 wildcard {@code [::]} (a dual-stack socket) where
     * this JVM can open IPv6 sockets, else the IPv4 wildcard.
     *
     * @param port the port; 0 picks a free port when the connector starts
     */
    public static InetSocketAddress everyInterface(int port) {
        return Ipv6.AVAILABLE ? new InetSocketAddress(Ipv6.WILDCARD, port) : new InetSocketAddress(port);
    }

    /** Whether a socket that binds {@code address} is opened as an IPv4 socket: the address is IPv4. */
    public static boolean isIpv4(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address;
    }

    /**
     * Opens an unbound JDK channel for {@code address}: IPv4 for an IPv4 address, else the JDK's
     * default (IPv6 and dual-stack where the JVM has IPv6; without it the bind fails with the
     * JDK's own error).
     */
    public static DatagramChannel open(InetSocketAddress address) throws IOException {
        return isIpv4(address) ? DatagramChannel.open(StandardProtocolFamily.INET) : DatagramChannel.open();
    }

    /** Probed once, on first use: {@code java.net.preferIPv4Stack=true} or a kernel without IPv6 say no. */
    private static final class Ipv6 {
        static final Inet6Address WILDCARD = wildcard();
        static final boolean AVAILABLE = probe();

        private static Inet6Address wildcard() {
            try {
                return Inet6Address.getByAddress(null, new byte[16], null);
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError("16 bytes are an IPv6 address", e);
            }
        }

        private static boolean probe() {
            try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET6)) {
                return true;
            } catch (UnsupportedOperationException | IOException e) {
                return false;
            }
        }
    }
}
