package io.stagecoach.core.network.internal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Hash codes and a total order for maps whose keys an attacker chooses: peer addresses (one host
 * can rotate ports, and {@code Inet6Address.hashCode} is the sum of the address's four 32-bit
 * words, so colliding IPv6 peers are trivial to make) and tokens.
 *
 * <p>The hash is keyed with a random value drawn once per process, so a remote party cannot
 * compute which keys collide; the order lets {@code HashMap} and {@code ConcurrentHashMap} keep a
 * crowded bin as a tree, so even keys that do collide cost {@code O(log n)} per operation. Keys
 * that use both are safe twice over.
 */
public final class PeerHashing {

    private static final long SEED = new SecureRandom().nextLong();

    private PeerHashing() {
    }

    /** A keyed 64-to-32-bit mix of {@code value} (the finalizer of SplitMix64 on value ^ seed). */
    public static int hash(long value) {
        long x = value ^ SEED;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return (int) (x ^ (x >>> 31));
    }

    /** A keyed hash of the peer's address and port. */
    public static int hash(InetSocketAddress peer) {
        InetAddress a = peer.getAddress();
        if (a instanceof Inet4Address) {
            return hash((a.hashCode() & 0xFFFF_FFFFL) << 16 | peer.getPort());
        }
        if (a instanceof Inet6Address) {
            byte[] b = a.getAddress();
            return hash(high(b) * 31 + hash(low(b)) + peer.getPort());
        }
        return hash((long) peer.hashCode()); // unresolved: the JDK's hash, keyed
    }

    /**
     * A total order on peers consistent with {@code equals}: IPv4 before IPv6 before unresolved,
     * then by address bytes, then by port.
     */
    public static int compare(InetSocketAddress x, InetSocketAddress y) {
        if (x.equals(y)) {
            return 0;
        }
        int c = Integer.compare(kind(x), kind(y));
        if (c != 0) {
            return c;
        }
        InetAddress ax = x.getAddress();
        InetAddress ay = y.getAddress();
        if (ax != null && ay != null) {
            c = Arrays.compareUnsigned(ax.getAddress(), ay.getAddress());
        } else {
            c = x.getHostString().compareTo(y.getHostString());
        }
        return c != 0 ? c : Integer.compare(x.getPort(), y.getPort());
    }

    private static int kind(InetSocketAddress peer) {
        InetAddress a = peer.getAddress();
        return a instanceof Inet4Address ? 0 : a instanceof Inet6Address ? 1 : 2;
    }

    static long high(byte[] b) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }

    static long low(byte[] b) {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }
}
