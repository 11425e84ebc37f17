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

    /** A serializer; it keeps no state between messages and may be shared. */
    public UdpMessageSerializer() {
    }

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
        return 4 + message.tokenLength() + OptionCodec.encodedLength(message.options(), message.payloadLength());
    }

    private static void check(Message m) {
        if (m.type() == null) {
            throw new IllegalArgumentException("message type not set: " + m);
        }
        if (m.mid() < 0) {
            throw new IllegalArgumentException("message ID not set: " + m);
        }
    }

    private static void write(Message m, byte[] out, int pos) {
        int tkl = m.tokenLength();
        out[pos++] = (byte) (0x40 | m.type().wire() << 4 | tkl);
        out[pos++] = (byte) m.code().value();
        out[pos++] = (byte) (m.mid() >>> 8);
        out[pos++] = (byte) m.mid();
        m.copyTokenTo(out, pos);
        pos += tkl;
        pos = OptionCodec.writeOptions(m.options(), m.payloadLength(), out, pos);
        m.copyPayloadTo(out, pos);
    }
}
