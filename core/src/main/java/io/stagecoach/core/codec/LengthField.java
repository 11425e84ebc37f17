package io.stagecoach.core.codec;

/**
 * The Len nibble and extended length of a TCP frame header (RFC 8323 §3.2): the length of
 * options, payload marker and payload, encoded like an option length (RFC 7252 §3.1) with one
 * more step: 0..12 in the nibble; 13 and one byte (+13); 14 and two bytes (+269); 15 and four
 * bytes (+65805). Every length has exactly one encoding, so re-encoding is byte-exact.
 */
final class LengthField {

    private LengthField() {
    }

    /** Extended length bytes after the first header byte for {@code nibble}: 0, 1, 2 or 4. */
    static int extraBytes(int nibble) {
        return nibble < 13 ? 0 : nibble == 13 ? 1 : nibble == 14 ? 2 : 4;
    }

    /** Smallest length {@code nibble} can stand for: the nibble itself, or 13, 269, 65805. */
    static int offset(int nibble) {
        return nibble < 13 ? nibble : nibble == 13 ? 13 : nibble == 14 ? 269 : 65805;
    }

    /**
     * The length {@code nibble} and its {@link #extraBytes} bytes at {@code buf[pos..]} stand
     * for; a {@code long}, as Len 15 reaches 2^32 - 1 + 65805.
     */
    static long read(int nibble, byte[] buf, int pos) {
        switch (nibble) {
            case 13:
                return (buf[pos] & 0xFF) + 13L;
            case 14:
                return ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269L;
            case 15:
                return ((long) (buf[pos] & 0xFF) << 24 | (buf[pos + 1] & 0xFF) << 16
                        | (buf[pos + 2] & 0xFF) << 8 | (buf[pos + 3] & 0xFF)) + 65805L;
            default:
                return nibble;
        }
    }

    /** The shortest nibble for {@code length}, as aiocoap writes it. */
    static int nibble(int length) {
        return length < 13 ? length : length < 269 ? 13 : length < 65805 ? 14 : 15;
    }

    /** Writes the extended bytes of {@code length} for {@code nibble}; returns the position after them. */
    static int writeExtended(byte[] out, int pos, int nibble, int length) {
        int v = length - offset(nibble);
        switch (nibble) {
            case 13:
                out[pos++] = (byte) v;
                break;
            case 14:
                out[pos++] = (byte) (v >>> 8);
                out[pos++] = (byte) v;
                break;
            case 15:
                out[pos++] = (byte) (v >>> 24);
                out[pos++] = (byte) (v >>> 16);
                out[pos++] = (byte) (v >>> 8);
                out[pos++] = (byte) v;
                break;
            default:
                break;
        }
        return pos;
    }
}
