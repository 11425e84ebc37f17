package io.stagecoach.bench.load;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.ReliableFraming;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.codec.UdpMessageSerializer;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A request encoded once by the codec, then copied and patched per send: the MID sits at bytes
 * 2..3 and the 4-byte token at bytes 4..7 of every CoAP-over-UDP message (RFC 7252 §3), so
 * nothing is encoded on the hot path. For a {@code coap+tcp} target the request is one RFC 8323
 * §3.2 frame (no type, no MID) whose token follows the length and code bytes
 * ({@link #tokenOffset()}).
 */
public final class RequestTemplate {

    /** Token length of every benchmark request; the token is the client's request counter. */
    public static final int TOKEN_LENGTH = 4;

    private final byte[] bytes;
    private final boolean confirmable;
    private final int tokenOffset;

    private RequestTemplate(byte[] bytes, boolean confirmable, int tokenOffset) {
        this.bytes = bytes;
        this.confirmable = confirmable;
        this.tokenOffset = tokenOffset;
    }

    public static RequestTemplate of(LoadSpec spec) {
        Code method = switch (spec.method()) {
            case "GET" -> Code.GET;
            case "POST" -> Code.POST;
            case "PUT" -> Code.PUT;
            case "DELETE" -> Code.DELETE;
            case "FETCH" -> Code.FETCH;
            default -> throw new IllegalArgumentException("unsupported method " + spec.method()
                    + " (GET, POST, PUT, DELETE, FETCH)");
        };
        byte[] payload = new byte[spec.payloadSize()];
        Arrays.fill(payload, (byte) 'x');
        Request request = Request.builder(method)
                .uri(spec.uri())
                .type(spec.confirmable() ? Type.CON : Type.NON)
                .mid(0)
                .token(Token.of(new byte[TOKEN_LENGTH]))
                .payload(payload)
                .build();
        if (spec.uri().isReliableTransport()) {
            byte[] frame = new TcpMessageSerializer(ReliableFraming.TCP).serialize(request);
            int len = (frame[0] & 0xFF) >> 4; // 13, 14, 15: 1, 2, 4 extended length bytes (RFC 8323 §3.2)
            int extended = len == 13 ? 1 : len == 14 ? 2 : len == 15 ? 4 : 0;
            return new RequestTemplate(frame, true, 2 + extended);
        }
        return new RequestTemplate(new UdpMessageSerializer().serialize(request), spec.confirmable(), 4);
    }

    public boolean confirmable() {
        return confirmable;
    }

    public int length() {
        return bytes.length;
    }

    /** Where the 4-byte token starts: 4 over UDP, after the length and code bytes over TCP. */
    public int tokenOffset() {
        return tokenOffset;
    }

    /** Writes the request with {@code mid} and {@code token} into {@code dst} (cleared, then flipped). */
    public void writeTo(ByteBuffer dst, int mid, int token) {
        dst.clear();
        dst.put(bytes);
        dst.putShort(2, (short) mid);
        dst.putInt(4, token);
        dst.flip();
    }

    /** Appends the TCP frame with {@code token} to {@code dst} (no clear, no flip). */
    public void appendFrame(ByteBuffer dst, int token) {
        int at = dst.position();
        dst.put(bytes);
        dst.putInt(at + tokenOffset, token);
    }

    /** A copy of the encoded bytes with MID and token 0. */
    public byte[] bytes() {
        return bytes.clone();
    }
}
