package io.stagecoach.core.coap;

/** Hex and CoAP uint helpers shared by the value classes of this package. */
final class Bytes {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Bytes() {
    }

    static String hex(byte[] b, int off, int len) {
        char[] out = new char[len * 2];
        for (int i = 0; i < len; i++) {
            int v = b[off + i] & 0xFF;
            out[2 * i] = HEX[v >>> 4];
            out[2 * i + 1] = HEX[v & 0xF];
        }
        return new String(out);
    }

    static byte[] fromHex(String hex) {
        if ((hex.length() & 1) != 0) {
            throw new IllegalArgumentException("odd number of hex digits: \"" + hex + "\"");
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex string: \"" + hex + "\"");
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }

    /** Minimal big-endian encoding of an unsigned value: 0 is the empty array (RFC 7252 §3.2). */
    static byte[] uint(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("uint value must not be negative, got " + value);
        }
        int len = (64 - Long.numberOfLeadingZeros(value) + 7) / 8;
        byte[] out = new byte[len];
        for (int i = len - 1; i >= 0; i--) {
            out[i] = (byte) value;
            value >>>= 8;
        }
        return out;
    }

    /** Big-endian unsigned value of up to 8 bytes; leading zero bytes are tolerated on receipt. */
    static long uint(byte[] b, int off, int len) {
        long v = 0;
        for (int i = 0; i < len; i++) {
            v = v << 8 | (b[off + i] & 0xFF);
        }
        return v;
    }
}
