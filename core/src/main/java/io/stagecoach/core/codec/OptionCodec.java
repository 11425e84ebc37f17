package io.stagecoach.core.codec;

import io.stagecoach.core.coap.OptionSet;

/**
 * The option and payload part of a CoAP message (RFC 7252 §3.1), which CoAP over UDP and CoAP
 * over TCP, TLS and WebSockets (RFC 8323 §3.2, §4.2) share byte for byte: only the header in
 * front of it differs. The parsers and serializers of both framings call this class, so the
 * option rules live in one place.
 *
 * <p>Parsing takes two passes over the bytes, as the UDP parser always did: {@link #scan} checks
 * the options and counts them, {@link #index} then records (number, offset, length) per option in
 * an array of the exact size, which {@link OptionSet#wrapWire} can keep. Neither pass allocates
 * on well-formed input.
 */
final class OptionCodec {

    static final int PAYLOAD_MARKER = 0xFF;

    private OptionCodec() {
    }

    /**
     * What {@link #scan} found wrong. The caller turns it into a {@link MessageFormatException}
     * with what it knows of the header; it never leaves the codec package.
     */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        /** Whether every option parsed and only the payload was wrong (marker with no payload). */
        final boolean optionsParsed;

        Malformed(String reason, boolean optionsParsed) {
            super(reason, null, false, false); // an expected outcome: no stack trace
            this.optionsParsed = optionsParsed;
        }
    }

    /**
     * Checks the options and the payload marker in {@code buf[pos..end)}.
     *
     * @return the option count in the low 32 bits and the payload start (== {@code end} when there
     *     is no payload) in the high 32 bits; see {@link #count} and {@link #payloadStart}
     * @throws Malformed for the nibble 15 outside a full payload marker, a truncated extended
     *     delta or length or option value, an option number above 65535, or a payload marker with
     *     nothing after it (RFC 7252 §3, §3.1)
     */
    static long scan(byte[] buf, int pos, int end) throws Malformed {
        int count = 0;
        int number = 0;
        int payloadStart = end;
        while (pos < end) {
            int b = buf[pos++] & 0xFF;
            if (b == PAYLOAD_MARKER) {
                if (pos == end) {
                    throw new Malformed("payload marker followed by an empty payload (RFC 7252 3)", true);
                }
                payloadStart = pos;
                break;
            }
            int delta = b >>> 4;
            int len = b & 0x0F;
            if (delta == 15 || len == 15) {
                throw new Malformed("option " + (delta == 15 ? "delta" : "length")
                        + " nibble 15 outside a payload marker (RFC 7252 3.1)", false);
            }
            if (delta >= 13) {
                int ext = extended(buf, pos, end, delta, "delta");
                pos += delta - 12;
                delta = ext;
            }
            if (len >= 13) {
                int ext = extended(buf, pos, end, len, "length");
                pos += len - 12;
                len = ext;
            }
            number += delta;
            if (number > 65535) {
                throw new Malformed("option number " + number + " exceeds 65535", false);
            }
            if (len > end - pos) {
                throw new Malformed("option " + number + " claims " + len + " bytes, only " + (end - pos)
                        + " follow", false);
            }
            count++;
            pos += len;
        }
        return (long) payloadStart << 32 | count;
    }

    /** The option count of a {@link #scan} result. */
    static int count(long scanned) {
        return (int) scanned;
    }

    /** The payload start of a {@link #scan} result. */
    static int payloadStart(long scanned) {
        return (int) (scanned >>> 32);
    }

    /**
     * The second pass over {@code count} options that {@link #scan} checked from {@code pos}:
     * (number, offset, length) per option, offsets into {@code buf}.
     */
    static int[] index(byte[] buf, int pos, int count) {
        int[] index = new int[3 * count];
        int number = 0;
        for (int k = 0; k < index.length; k += 3) {
            int b = buf[pos++] & 0xFF;
            int delta = b >>> 4;
            int len = b & 0x0F;
            if (delta >= 13) {
                int ext = checkedExtended(buf, pos, delta);
                pos += delta - 12;
                delta = ext;
            }
            if (len >= 13) {
                int ext = checkedExtended(buf, pos, len);
                pos += len - 12;
                len = ext;
            }
            number += delta;
            index[k] = number;
            index[k + 1] = pos;
            index[k + 2] = len;
            pos += len;
        }
        return index;
    }

    /**
     * The second pass for a message of one option that {@link #scan} checked at {@code pos}, without
     * an index array: its number (bits 0..16), value length (bits 17..33) and value offset in
     * {@code buf} (bits 34..63). Use only when {@code buf} is shorter than 2<sup>30</sup> bytes.
     */
    static long first(byte[] buf, int pos) {
        int b = buf[pos++] & 0xFF;
        int number = b >>> 4;
        int len = b & 0x0F;
        if (number >= 13) {
            int ext = checkedExtended(buf, pos, number);
            pos += number - 12;
            number = ext;
        }
        if (len >= 13) {
            int ext = checkedExtended(buf, pos, len);
            pos += len - 12;
            len = ext;
        }
        return number | (long) len << 17 | (long) pos << 34;
    }

    /** The extended delta or length for nibble 13 or 14 at {@code pos}, already checked by {@link #scan}. */
    private static int checkedExtended(byte[] buf, int pos, int nibble) {
        return nibble == 13 ? (buf[pos] & 0xFF) + 13 : ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269;
    }

    /** Reads the extended delta or length for nibble 13 (1 byte, +13) or 14 (2 bytes, +269). */
    private static int extended(byte[] buf, int pos, int end, int nibble, String what) throws Malformed {
        int need = nibble - 12;
        if (end - pos < need) {
            throw new Malformed("option " + what + " " + nibble + " needs " + need + " more byte"
                    + (need == 1 ? "" : "s"), false);
        }
        if (nibble == 13) {
            return (buf[pos] & 0xFF) + 13;
        }
        return ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269;
    }

    /**
     * Bytes that {@code options}, the payload marker and a payload of {@code payloadLength} bytes
     * take, with the shortest delta/length encoding.
     */
    static int encodedLength(OptionSet options, int payloadLength) {
        int len = 0;
        int prev = 0;
        for (int i = 0; i < options.size(); i++) {
            int n = options.number(i);
            int vl = options.valueLength(i);
            len += 1 + extraBytes(n - prev) + extraBytes(vl) + vl;
            prev = n;
        }
        return payloadLength == 0 ? len : len + 1 + payloadLength;
    }

    /**
     * Writes {@code options} in the order the set holds them, each delta and length in its
     * shortest form, and the payload marker when {@code payloadLength > 0}.
     *
     * @return the position after the options and the marker, where the payload goes
     */
    static int writeOptions(OptionSet options, int payloadLength, byte[] out, int pos) {
        int prev = 0;
        for (int i = 0; i < options.size(); i++) {
            int n = options.number(i);
            int vl = options.valueLength(i);
            int delta = n - prev;
            prev = n;
            int head = pos++;
            int dn = nibble(delta);
            int ln = nibble(vl);
            out[head] = (byte) (dn << 4 | ln);
            pos = writeExtended(out, pos, dn, delta);
            pos = writeExtended(out, pos, ln, vl);
            options.copyValue(i, out, pos);
            pos += vl;
        }
        if (payloadLength > 0) {
            out[pos++] = (byte) PAYLOAD_MARKER;
        }
        return pos;
    }

    private static int extraBytes(int v) {
        return v < 13 ? 0 : v < 269 ? 1 : 2;
    }

    private static int nibble(int v) {
        return v < 13 ? v : v < 269 ? 13 : 14;
    }

    private static int writeExtended(byte[] out, int pos, int nibble, int v) {
        if (nibble == 13) {
            out[pos++] = (byte) (v - 13);
        } else if (nibble == 14) {
            out[pos++] = (byte) ((v - 269) >>> 8);
            out[pos++] = (byte) (v - 269);
        }
        return pos;
    }
}
