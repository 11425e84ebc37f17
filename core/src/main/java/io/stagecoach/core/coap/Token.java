package io.stagecoach.core.coap;

import java.security.SecureRandom;

/**
 * A request/response matching token (RFC 7252 §5.3.1): 0 to 8 opaque bytes. Immutable; the bytes
 * are copied in and out.
 */
public final class Token implements Comparable<Token> {

    /** Longest token RFC 7252 allows (TKL 9..15 are reserved, §3). */
    public static final int MAX_LENGTH = 8;

    /** The zero-length token. */
    public static final Token EMPTY = new Token(0L, 0);

    /**
     * Key of the hash: drawn once per process, so a peer choosing tokens cannot know which ones
     * collide in a hash table (tokens key the tables that match responses and observe relations).
     */
    private static final long HASH_KEY = new SecureRandom().nextLong();

    // The bytes, big-endian, in the low `length` bytes of `bits`: at most 8 bytes fit in a long, so a
    // token needs no array (saves 24 B per parsed message). Equal bytes give equal (bits, length).
    private final long bits;
    private final int length;

    private Token(long bits, int length) {
        this.bits = bits;
        this.length = length;
    }

    /** A token holding a copy of {@code bytes}. */
    public static Token of(byte[] bytes) {
        return of(bytes, 0, bytes.length);
    }

    /** A token holding a copy of {@code len} bytes of {@code src} from {@code off}. */
    public static Token of(byte[] src, int off, int len) {
        if (len < 0 || len > MAX_LENGTH) {
            throw new IllegalArgumentException("token length must be 0..8 bytes, got " + len);
        }
        if (off < 0 || off > src.length - len) {
            throw new IndexOutOfBoundsException("token bytes " + off + "+" + len + " outside " + src.length + " bytes");
        }
        if (len == 0) {
            return EMPTY;
        }
        return new Token(bits(src, off, len), len);
    }

    /** A token from hex digits, e.g. {@code fromHex("0a1b")}; {@code ""} is {@link #EMPTY}. */
    public static Token fromHex(String hex) {
        return of(Bytes.fromHex(hex));
    }

    /** The token of {@code length} bytes held in the low bytes of {@code bits}; for messages holding a token unboxed. */
    static Token of(long bits, int length) {
        return length == 0 ? EMPTY : new Token(bits, length);
    }

    /** The bytes, big-endian, in the low {@link #length()} bytes; for messages holding a token unboxed. */
    long bits() {
        return bits;
    }

    /** Big-endian value of {@code len} (0..8, checked by the caller) bytes of {@code src} from {@code off}. */
    static long bits(byte[] src, int off, int len) {
        long v = 0;
        for (int i = 0; i < len; i++) {
            v = v << 8 | (src[off + i] & 0xFF);
        }
        return v;
    }

    /** Writes the low {@code length} bytes of {@code bits} big-endian into {@code dst} at {@code off}. */
    static void copyTo(long bits, int length, byte[] dst, int off) {
        long v = bits;
        for (int i = length - 1; i >= 0; i--) {
            dst[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** {@link #hashCode()} of the token (bits, length), without the object. */
    static int hash(long bits, int length) {
        long x = (bits ^ HASH_KEY) + length;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return (int) (x ^ (x >>> 31));
    }

    /** The 8-byte big-endian token of {@code value}, the usual form of generated tokens. */
    public static Token ofLong(long value) {
        return new Token(value, 8);
    }

    public int length() {
        return length;
    }

    public boolean isEmpty() {
        return length == 0;
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        byte[] b = new byte[length];
        copyTo(b, 0);
        return b;
    }

    /** Copies the bytes into {@code dst} at {@code off}; for encoders that avoid a copy. */
    public void copyTo(byte[] dst, int off) {
        copyTo(bits, length, dst, off);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Token && ((Token) o).bits == bits && ((Token) o).length == length;
    }

    /** A hash of bytes and length, keyed per process (see {@link #HASH_KEY}). */
    @Override
    public int hashCode() {
        return hash(bits, length);
    }

    /** Shorter tokens first, then by their bytes as an unsigned number; consistent with equals. */
    @Override
    public int compareTo(Token o) {
        int c = Integer.compare(length, o.length);
        return c != 0 ? c : Long.compareUnsigned(bits, o.bits);
    }

    /** Lower-case hex, {@code ""} for the empty token. */
    public String toHex() {
        return Bytes.hex(bytes(), 0, length);
    }

    @Override
    public String toString() {
        return length == 0 ? "[]" : toHex();
    }
}
