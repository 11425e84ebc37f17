package io.stagecoach.elements.dtls;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * What counts as one source for per-source limits: an IPv4 address, or the /64 of an IPv6
 * address (one host or subnet usually holds a whole /64, so counting its addresses one by one
 * would let it take any number of slots).
 */
final class SourceBlock {

    private SourceBlock() {
    }

    /** A key equal for addresses of the same block: an {@code Integer} (IPv4) or a {@code Long} (IPv6 /64). */
    public static Object of(InetAddress address) {
        byte[] a = address.getAddress();
        if (address instanceof Inet6Address) {
            long prefix = 0;
            for (int i = 0; i < 8; i++) {
                prefix = (prefix << 8) | (a[i] & 0xFF);
            }
            return prefix;
        }
        return ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    /** A well-mixed 32-bit hash of the block of {@code address}, without allocating. */
    public static int hash(InetAddress address) {
        byte[] a = address.getAddress();
        int n = address instanceof Inet6Address ? 8 : 4;
        long h = 0x9E3779B97F4A7C15L ^ n;
        for (int i = 0; i < n; i++) {
            h = (h ^ (a[i] & 0xFF)) * 0x100000001B3L;
        }
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }
}
