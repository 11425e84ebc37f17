package io.stagecoach.elements.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * The address family a UDP connector opens its socket with: the family of the address it binds,
 * as libcoap does, except for the wildcard. A specific IPv4 address gets an IPv4 socket, which
 * serves IPv4 peers only; an IPv6 address gets an IPv6 socket. Either wildcard, {@code 0.0.0.0}
 * or {@code [::]}, keeps the JDK's meaning, "every interface", and is a dual-stack socket (with Linux's default {@code net.ipv6.bindv6only=0}):
 * IPv4 peers arrive as IPv4-mapped addresses (RFC 4291 §2.5.5.2), which the connectors report as
 * plain IPv4 addresses.
 *
 * <p>Why not always an IPv6 socket, as {@code DatagramChannel.open()} does: every datagram of a
 * dual-stack socket, IPv4 ones too, goes through the kernel's IPv6 UDP functions first
 * ({@code udpv6_sendmsg}, {@code udpv6_recvmsg}): ~140 ns per request in a kernel profile of the
 * server at saturation (docs/benchmarks/physical-limit.md), which an IPv4 socket does not spend.
 *
 * <p>Why the IPv4 wildcard is not IPv4-only, as it is in libcoap: {@code new InetSocketAddress(port)}
 * is {@code 0.0.0.0} in a default JVM, and Java code (Californium's among it) uses it to mean
 * "listen everywhere"; an IPv4-only socket there would silently lock IPv6 peers out.
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

    /**
     * Whether a socket that binds {@code address} is opened as an IPv4 socket: the address is a
     * specific IPv4 address, not the wildcard.
     */
    public static boolean isIpv4(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address && !address.getAddress().isAnyLocalAddress();
    }

    /**
     * Opens an unbound JDK channel for {@code address}: IPv4 for a specific IPv4 address, else the JDK's
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
