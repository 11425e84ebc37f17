package io.stagecoach.bench.jmh;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The keys a hash-flooding attacker chooses, and random ones to compare with: IPv6 peers of one
 * /64 (what one subscriber holds, RFC 6177) and 8-byte tokens. Colliding keys share the hash the
 * JDK gives them; every generator checks that it does.
 */
final class FloodKeys {

    /** The attacker's /64, 2001:db8:66:1::/64 (documentation prefix, RFC 3849). */
    private static final byte[] PREFIX = {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0x66, 0, 1};
    static final int PORT = 5683;

    private FloodKeys() {
    }

    /** {@code n} distinct peers of the /64 with random interface identifiers, all on port 5683. */
    static List<InetSocketAddress> randomPeers(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<InetSocketAddress> out = new ArrayList<>(n);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        while (out.size() < n) {
            long iid = random.nextLong();
            if (seen.add(iid)) {
                out.add(peer(iid >>> 32, iid & 0xFFFF_FFFFL));
            }
        }
        return out;
    }

    /**
     * {@code n} distinct peers of the /64 on port 5683 whose {@code InetSocketAddress.hashCode} is
     * one value. {@code Inet6Address.hashCode} adds the four 32-bit words of the address, each read
     * big-endian with <em>signed</em> bytes; with the prefix fixed, the third word runs through
     * distinct values and the fourth is chosen so that the two add up to the same sum. Every
     * residue modulo 2³² has one such signed-byte form, so the attacker has 2³² of these per /64.
     */
    static List<InetSocketAddress> collidingPeers(int n) {
        List<InetSocketAddress> out = new ArrayList<>(n);
        int expected = 0;
        for (int i = 0; i < n; i++) {
            // Spread the third word (odd multiplier: distinct for distinct i).
            int third = i * 0x9E37_79B9;
            int thirdSigned = signedWord(third);
            long fourth = (0x1234_5678L - thirdSigned) & 0xFFFF_FFFFL;
            InetSocketAddress p = peer(third & 0xFFFF_FFFFL, signedBytesOf((int) fourth));
            if (i == 0) {
                expected = p.hashCode();
            } else if (p.hashCode() != expected) {
                throw new IllegalStateException("peer " + i + " does not collide: " + p);
            }
            out.add(p);
        }
        return out;
    }

    /** {@code n} distinct random 8-byte tokens. */
    static List<byte[]> randomTokens(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> out = new ArrayList<>(n);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        while (out.size() < n) {
            long v = random.nextLong();
            if (seen.add(v)) {
                byte[] t = new byte[8];
                for (int i = 0; i < 8; i++) {
                    t[i] = (byte) (v >>> (56 - 8 * i));
                }
                out.add(t);
            }
        }
        return out;
    }

    /**
     * {@code n} (up to about 3 million) distinct 8-byte tokens with one {@code Arrays.hashCode}.
     * That hash is 31⁸ + Σ bᵢ·31^(7−i) with signed bytes; grouping the bytes in pairs
     * {@code Pⱼ = 31·b₂ⱼ + b₂ⱼ₊₁} makes it 31⁸ + P₀·961³ + P₁·961² + P₂·961 + P₃, which is
     * 31⁸ exactly when P₀ = −e₁, P₁ = 961e₁ − e₂, P₂ = 961e₂ − e₃, P₃ = 961e₃ (the terms cancel
     * in pairs). With e₁, e₂, e₃ in −4..4 every Pⱼ lies in −3,848..3,848, and each such value has
     * about eight pairs of bytes (b, P − 31b) in range.
     */
    static List<byte[]> collidingTokens(int n) {
        List<byte[]> out = new ArrayList<>(n);
        int expected = Arrays.hashCode(new byte[8]);
        outer:
        for (int e1 = -4; e1 <= 4; e1++) {
            for (int e2 = -4; e2 <= 4; e2++) {
                for (int e3 = -4; e3 <= 4; e3++) {
                    int[] p = {-e1, 961 * e1 - e2, 961 * e2 - e3, 961 * e3};
                    List<List<byte[]>> pairs = new ArrayList<>(4);
                    for (int v : p) {
                        pairs.add(pairsOf(v));
                    }
                    for (byte[] a : pairs.get(0)) {
                        for (byte[] b : pairs.get(1)) {
                            for (byte[] c : pairs.get(2)) {
                                for (byte[] d : pairs.get(3)) {
                                    byte[] t = {a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]};
                                    if (Arrays.hashCode(t) != expected) {
                                        throw new IllegalStateException("token does not collide: " + Arrays.toString(t));
                                    }
                                    out.add(t);
                                    if (out.size() == n) {
                                        break outer;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if (out.size() < n) {
            throw new IllegalArgumentException("only " + out.size() + " colliding tokens, asked for " + n);
        }
        return out;
    }

    /** Every (b, b') of signed bytes with 31·b + b' = value. */
    private static List<byte[]> pairsOf(int value) {
        List<byte[]> out = new ArrayList<>(9);
        for (int b = -128; b <= 127; b++) {
            int rest = value - 31 * b;
            if (rest >= -128 && rest <= 127) {
                out.add(new byte[] {(byte) b, (byte) rest});
            }
        }
        return out;
    }

    /** The value {@code Inet6Address.hashCode} gives the word whose big-endian bytes are {@code w}'s. */
    private static int signedWord(int w) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = (v << 8) + (byte) (w >>> (24 - 8 * i));
        }
        return v;
    }

    /** Big-endian bytes whose signed reading (as {@link #signedWord}) gives {@code target}, as an unsigned word. */
    private static long signedBytesOf(int target) {
        long t = target;
        long word = 0;
        for (int i = 0; i < 4; i++) {
            byte digit = (byte) t;
            word |= (digit & 0xFFL) << (8 * i);
            t = (t - digit) >> 8;
        }
        return word;
    }

    private static InetSocketAddress peer(long third, long fourth) {
        byte[] a = Arrays.copyOf(PREFIX, 16);
        for (int i = 0; i < 4; i++) {
            a[8 + i] = (byte) (third >>> (24 - 8 * i));
            a[12 + i] = (byte) (fourth >>> (24 - 8 * i));
        }
        try {
            InetAddress address = InetAddress.getByAddress(a);
            if (!(address instanceof Inet6Address)) {
                throw new IllegalStateException("not IPv6: " + address);
            }
            return new InetSocketAddress(address, PORT);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
