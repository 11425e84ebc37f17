package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import java.util.Objects;

/**
 * Encodes a message or a signaling message as one frame for TCP/TLS (RFC 8323 §3.2) or
 * WebSockets (§4.2). Stateless and thread-safe.
 *
 * <p>TCP frames carry the shortest length encoding (Len 0..12, or 13/14/15 with 1, 2 or 4
 * extended bytes), WebSocket frames Len 0 and no extended length, both as aiocoap writes them.
 * Options are written in the order the {@link OptionSet} holds them with the shortest delta and
 * length encoding, so a parsed frame re-encodes to the same bytes.
 *
 * <p>A message's {@link Message#type()} and {@link Message#mid()} are not written (the frame has
 * no place for them) and may be anything; a request built for UDP can be sent unchanged. The
 * peer's Max-Message-Size is the endpoint's to respect: {@link #encodedLength} tells the size to
 * compare with it.
 */
public final class TcpMessageSerializer {

    private final ReliableFraming framing;

    public TcpMessageSerializer(ReliableFraming framing) {
        this.framing = Objects.requireNonNull(framing, "framing");
    }

    public ReliableFraming framing() {
        return framing;
    }

    /** Size of the frame {@code message} encodes to, header included (what Max-Message-Size counts). */
    public int encodedLength(Message message) {
        return frameLength(message.tokenLength(), body(message.options(), message.payloadLength()));
    }

    /** Size of the frame {@code signal} encodes to. */
    public int encodedLength(SignalingMessage signal) {
        return frameLength(signal.token().length(), body(signal.options(), signal.payloadLength()));
    }

    /** The frame for {@code message}. */
    public byte[] serialize(Message message) {
        int body = body(message.options(), message.payloadLength());
        byte[] out = new byte[frameLength(message.tokenLength(), body)];
        int pos = writeHead(out, 0, message, body);
        message.copyPayloadTo(out, pos);
        return out;
    }

    /** The frame for {@code signal}. */
    public byte[] serialize(SignalingMessage signal) {
        int body = body(signal.options(), signal.payloadLength());
        Token token = signal.token();
        byte[] out = new byte[frameLength(token.length(), body)];
        int pos = writeHead(out, 0, signal.code(), token, signal.options(), signal.payloadLength(), body);
        signal.copyPayloadTo(out, pos);
        return out;
    }

    /**
     * Writes the frame for {@code message} into {@code dst} at {@code offset}.
     *
     * @return the number of bytes written
     * @throws IllegalArgumentException if {@code dst} is too small
     */
    public int serialize(Message message, byte[] dst, int offset) {
        int body = body(message.options(), message.payloadLength());
        int len = frameLength(message.tokenLength(), body);
        checkRoom(len, dst, offset);
        int pos = writeHead(dst, offset, message, body);
        message.copyPayloadTo(dst, pos);
        return len;
    }

    /** As {@link #serialize(Message, byte[], int)} for a signaling message. */
    public int serialize(SignalingMessage signal, byte[] dst, int offset) {
        int body = body(signal.options(), signal.payloadLength());
        Token token = signal.token();
        int len = frameLength(token.length(), body);
        checkRoom(len, dst, offset);
        int pos = writeHead(dst, offset, signal.code(), token, signal.options(), signal.payloadLength(), body);
        signal.copyPayloadTo(dst, pos);
        return len;
    }

    private static void checkRoom(int len, byte[] dst, int offset) {
        if (offset < 0 || offset > dst.length || dst.length - offset < len) {
            throw new IllegalArgumentException("frame needs " + len + " bytes, buffer has "
                    + (dst.length - offset) + " from offset " + offset);
        }
    }

    /** Length of options, payload marker and payload: what the TCP Len field counts (RFC 8323 3.2). */
    private static int body(OptionSet options, int payloadLength) {
        return OptionCodec.encodedLength(options, payloadLength);
    }

    private int frameLength(int tokenLength, int body) {
        int ext = framing == ReliableFraming.TCP ? LengthField.extraBytes(LengthField.nibble(body)) : 0;
        return 2 + ext + tokenLength + body;
    }

    /** As below for a message, whose token is copied from the message itself (no {@link Token} object). */
    private int writeHead(byte[] out, int pos, Message message, int body) {
        int tkl = message.tokenLength();
        pos = writeLengthAndCode(out, pos, message.code(), tkl, body);
        message.copyTokenTo(out, pos);
        return OptionCodec.writeOptions(message.options(), message.payloadLength(), out, pos + tkl);
    }

    /** Writes header, token, options and payload marker; returns where the payload goes. */
    private int writeHead(byte[] out, int pos, Code code, Token token, OptionSet options, int payloadLength,
            int body) {
        int tkl = token.length();
        pos = writeLengthAndCode(out, pos, code, tkl, body);
        token.copyTo(out, pos);
        return OptionCodec.writeOptions(options, payloadLength, out, pos + tkl);
    }

    /** Writes Len/TKL, the extended length and the code; returns where the token goes. */
    private int writeLengthAndCode(byte[] out, int pos, Code code, int tkl, int body) {
        if (framing == ReliableFraming.TCP) {
            int nibble = LengthField.nibble(body);
            out[pos++] = (byte) (nibble << 4 | tkl);
            pos = LengthField.writeExtended(out, pos, nibble, body);
        } else {
            out[pos++] = (byte) tkl; // Len 0: the WebSocket message carries the length (RFC 8323 4.2)
        }
        out[pos++] = (byte) code.value();
        return pos;
    }
}
