package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;

/**
 * Encodes a message as one CoAP-over-UDP datagram (RFC 7252 §3). Stateless and thread-safe.
 *
 * <p>The message must have its type and MID set (the stack fills them); otherwise
 * {@link IllegalArgumentException}. Options are written in the order the {@link OptionSet}
 * holds them, with the shortest delta/length encoding, so a parsed message re-encodes to the
 * same bytes.
 */
public final class UdpMessageSerializer {

    /** The datagram for {@code message}. */
    public byte[] serialize(Message message) {
        byte[] out = new byte[encodedLength(message)];
        write(message, out, 0);
        return out;
    }

    /**
     * Writes the datagram into {@code dst} at {@code offset}.
     *
     * @return the number of bytes written
     * @throws IllegalArgumentException if {@code dst} is too small
     */
    public int serialize(Message message, byte[] dst, int offset) {
        int len = encodedLength(message);
        if (offset < 0 || dst.length - offset < len) {
            throw new IllegalArgumentException("message needs " + len + " bytes, buffer has "
                    + (dst.length - offset) + " from offset " + offset);
        }
        write(message, dst, offset);
        return len;
    }

    /** Size of the datagram {@code message} encodes to. */
    public int encodedLength(Message message) {
        check(message);
        OptionSet options = message.options();
        int len = 4 + message.token().length();
        int prev = 0;
        for (int i = 0; i < options.size(); i++) {
            int n = options.number(i);
            int vl = options.valueLength(i);
            len += 1 + extraBytes(n - prev) + extraBytes(vl) + vl;
            prev = n;
        }
        int p = message.payloadLength();
        return p == 0 ? len : len + 1 + p;
    }

    private static void check(Message m) {
        if (m.type() == null) {
            throw new IllegalArgumentException("message type not set: " + m);
        }
        if (m.mid() < 0) {
            throw new IllegalArgumentException("message ID not set: " + m);
        }
    }

    private static int extraBytes(int v) {
        return v < 13 ? 0 : v < 269 ? 1 : 2;
    }

    private static void write(Message m, byte[] out, int pos) {
        int tkl = m.token().length();
        out[pos++] = (byte) (0x40 | m.type().wire() << 4 | tkl);
        out[pos++] = (byte) m.code().value();
        out[pos++] = (byte) (m.mid() >>> 8);
        out[pos++] = (byte) m.mid();
        m.token().copyTo(out, pos);
        pos += tkl;
        OptionSet options = m.options();
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
        if (m.payloadLength() > 0) {
            out[pos++] = (byte) 0xFF;
            m.copyPayloadTo(out, pos);
        }
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
