package io.stagecoach.core.coap;

import java.util.Arrays;

/**
 * A request/response matching token (RFC 7252 §5.3.1): 0 to 8 opaque bytes. Immutable; the bytes
 * are copied in and out.
 */
public final class Token {

    /** Longest token RFC 7252 allows (TKL 9..15 are reserved, §3). */
    public static final int MAX_LENGTH = 8;

    /** The zero-length token. */
    public static final Token EMPTY = new Token(new byte[0]);

    private final byte[] bytes;
    private final int hash;

    private Token(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
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
        if (len == 0) {
            return EMPTY;
        }
        return new Token(Arrays.copyOfRange(src, off, off + len));
    }

    /** A token from hex digits, e.g. {@code fromHex("0a1b")}; {@code ""} is {@link #EMPTY}. */
    public static Token fromHex(String hex) {
        return of(Bytes.fromHex(hex));
    }

    /** The 8-byte big-endian token of {@code value}, the usual form of generated tokens. */
    public static Token ofLong(long value) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) value;
            value >>>= 8;
        }
        return new Token(b);
    }

    public int length() {
        return bytes.length;
    }

    public boolean isEmpty() {
        return bytes.length == 0;
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Copies the bytes into {@code dst} at {@code off}; for encoders that avoid a copy. */
    public void copyTo(byte[] dst, int off) {
        System.arraycopy(bytes, 0, dst, off, bytes.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Token && ((Token) o).hash == hash && Arrays.equals(((Token) o).bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Lower-case hex, {@code ""} for the empty token. */
    public String toHex() {
        return Bytes.hex(bytes, 0, bytes.length);
    }

    @Override
    public String toString() {
        return bytes.length == 0 ? "[]" : toHex();
    }
}
