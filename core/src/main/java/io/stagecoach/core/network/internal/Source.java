package io.stagecoach.core.network.internal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Who pays for the state a message makes a server keep: the source's IPv4 address, or the /64
 * prefix of its IPv6 address. Ports are left out because one host can use all 65,535 of them, and
 * the host part of an IPv6 address because a single subscriber usually holds a whole /64
 * (RFC 6177). Every per-peer budget of an endpoint is counted per source.
 *
 * <p>Immutable; its hash is keyed ({@link PeerHashing}) and it is {@link Comparable}, so maps of
 * sources resist hash flooding.
 *
 * @param prefix the IPv4 address as an unsigned 32-bit value, or the first 64 bits of the IPv6
 *               address
 * @param ipv6   whether {@code prefix} is an IPv6 /64
 */
public record Source(long prefix, boolean ipv6) implements Comparable<Source> {

    private static final boolean HASH_IS_ADDRESS = ipv4HashIsAddress();

    /** The source of {@code peer}; an unresolved peer counts as the IPv4 source 0.0.0.0. */
    public static Source of(InetSocketAddress peer) {
        return of(peer.getAddress());
    }

    public static Source of(InetAddress address) {
        if (address instanceof Inet4Address) {
            return new Source(ipv4(address), false);
        }
        if (address instanceof Inet6Address) {
            return new Source(PeerHashing.high(address.getAddress()), true);
        }
        return new Source(0, false);
    }

    /**
     * The IPv4 address of {@code address} as an unsigned 32-bit value, or -1 for any other
     * address. Read without copying the address where {@code Inet4Address.hashCode()} is the
     * address, as in OpenJDK ({@code getAddress()} allocates an array, twice per request).
     */
    public static long ipv4(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            return -1;
        }
        return HASH_IS_ADDRESS ? address.hashCode() & 0xFFFF_FFFFL : unsigned(address.getAddress());
    }

    private static long unsigned(byte[] a) {
        return ((a[0] & 0xFFL) << 24) | ((a[1] & 0xFFL) << 16) | ((a[2] & 0xFFL) << 8) | (a[3] & 0xFFL);
    }

    /** Checked once on a sample address rather than assumed. */
    private static boolean ipv4HashIsAddress() {
        try {
            byte[] sample = {(byte) 192, 0, 2, (byte) 201};
            return InetAddress.getByAddress(sample).hashCode() == (int) unsigned(sample);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public int hashCode() {
        return PeerHashing.hash(prefix ^ (ipv6 ? 0x5bd1e995L : 0));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Source s && s.prefix == prefix && s.ipv6 == ipv6;
    }

    @Override
    public int compareTo(Source o) {
        int c = Boolean.compare(ipv6, o.ipv6);
        return c != 0 ? c : Long.compareUnsigned(prefix, o.prefix);
    }

    /** {@code 10.0.0.9} or {@code 2001:db8:0:1::/64}. */
    @Override
    public String toString() {
        if (!ipv6) {
            return (prefix >>> 24) + "." + (prefix >>> 16 & 0xFF) + "." + (prefix >>> 8 & 0xFF) + "." + (prefix & 0xFF);
        }
        return Long.toHexString(prefix >>> 48) + ":" + Long.toHexString(prefix >>> 32 & 0xFFFF) + ":"
                + Long.toHexString(prefix >>> 16 & 0xFFFF) + ":" + Long.toHexString(prefix & 0xFFFF) + "::/64";
    }
}
