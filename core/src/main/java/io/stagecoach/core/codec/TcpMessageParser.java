package io.stagecoach.core.codec;

import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.elements.EndpointContext;
import java.util.Arrays;
import java.util.Objects;

/**
 * Decodes one CoAP message framed for TCP/TLS (RFC 8323 §3.2) or WebSockets (§4.2): one whole
 * frame, as {@link TcpFrameSplitter} cuts them from a stream or one WebSocket binary message.
 * Stateless and thread-safe.
 *
 * <p><b>Two kinds of result.</b> A frame with a 7.xx code is a signaling message (§5), which
 * belongs to the connection; {@link #isSignaling} tells which, then {@link #parseSignal} returns
 * a {@link SignalingMessage} and {@link #parseMessage} a {@link Request}, {@link Response} or
 * {@link EmptyMessage}. Calling the other one is a programming error
 * ({@link IllegalArgumentException}); this way neither result needs a wrapper object.
 *
 * <p><b>No type, no message ID.</b> The frame has neither (§3.2), so a parsed message has
 * {@link Message#type()} {@code null} and {@link Message#mid()} -1: the model's "not set yet".
 * That keeps the model unchanged, keeps {@code equals} meaningful, and makes
 * {@link UdpMessageSerializer} refuse such a message instead of inventing a type for it.
 *
 * <p><b>Errors</b> raise {@link MessageFormatException}, never anything else, with the verdict
 * RFC 8323 asks for: {@link Verdict#ABORT} (send {@link MessageFormatException#abortSignal()},
 * close; §5.6) for a frame longer than {@link #maxMessageSize()} (§5.3.1), a header cut short,
 * an announced length other than the frame's, a WebSocket Len nibble other than 0 (§4.2), TKL
 * 9..15, a truncated token, the option errors of RFC 7252 §3.1 (nibble 15, truncated extended
 * delta/length or value, number above 65535, payload marker with nothing after it), a code of the
 * reserved classes 1 and 6 (RFC 7252 §4.2), and the signaling errors of {@link SignalingRules};
 * {@link Verdict#IGNORE} for an Empty message (0.00) with token, options or payload, since §3.4
 * has Empty messages ignored.
 *
 * <p>As over UDP, option <em>values</em> of requests and responses are not validated here
 * (RFC 7252 §5.4.3 makes that the endpoint's decision); over these transports read Block options
 * with {@link io.stagecoach.core.coap.ReliableTransportOptions}, where SZX 7 is BERT (§6).
 */
public final class TcpMessageParser {

    /**
     * The Max-Message-Size every peer may assume before a CSM says otherwise (RFC 8323 §5.3.1,
     * RFC 7252 §4.6); a receiver announcing more in its CSM configures more here.
     */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 1152;

    private final ReliableFraming framing;
    private final int maxMessageSize;

    /**
     * @param maxMessageSize largest message accepted, whole frame from the first header byte to the
     *     end of the payload, as Max-Message-Size counts it (§5.3.1); at least 2
     */
    public TcpMessageParser(ReliableFraming framing, int maxMessageSize) {
        if (maxMessageSize < 2) {
            throw new IllegalArgumentException("max message size must be at least 2 bytes, got " + maxMessageSize);
        }
        this.framing = Objects.requireNonNull(framing, "framing");
        this.maxMessageSize = maxMessageSize;
    }

    public ReliableFraming framing() {
        return framing;
    }

    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** Whether {@code frame} carries a signaling (7.xx) code; false when no code is readable. */
    public boolean isSignaling(byte[] frame) {
        return isSignaling(frame, 0, frame.length);
    }

    /** As {@link #isSignaling(byte[])} for {@code len} bytes of {@code buf} from {@code off}. */
    public boolean isSignaling(byte[] buf, int off, int len) {
        if (off < 0 || len < 1 || off > buf.length - len) {
            return false;
        }
        int codeAt = 1 + (framing == ReliableFraming.TCP ? LengthField.extraBytes((buf[off] & 0xFF) >>> 4) : 0);
        return codeAt < len && (buf[off + codeAt] & 0xE0) == 0xE0;
    }

    /** Parses a whole frame that is a request, a response or an Empty message. */
    public Message parseMessage(byte[] frame) throws MessageFormatException {
        return parseMessage(frame, 0, frame.length, null, 0, false);
    }

    /** Parses {@code len} bytes of {@code buf} from {@code off}, received from {@code peer}; copies what it keeps. */
    public Message parseMessage(byte[] buf, int off, int len, EndpointContext peer, long receiveNanos)
            throws MessageFormatException {
        return parseMessage(buf, off, len, peer, receiveNanos, false);
    }

    /**
     * Parses a whole frame the caller hands over, such as one {@link TcpFrameSplitter} returned:
     * the options read their values from {@code frame} in place ({@link OptionSet#wrapWire}), so
     * nobody may modify the array afterwards. Token and payload are still copied.
     */
    public Message parseMessageShared(byte[] frame, EndpointContext peer, long receiveNanos)
            throws MessageFormatException {
        return parseMessage(frame, 0, frame.length, peer, receiveNanos, true);
    }

    /** Parses a whole frame that is a signaling message (RFC 8323 §5). */
    public SignalingMessage parseSignal(byte[] frame) throws MessageFormatException {
        return parseSignal(frame, 0, frame.length);
    }

    /** As {@link #parseSignal(byte[])} for {@code len} bytes of {@code buf} from {@code off}; copies. */
    public SignalingMessage parseSignal(byte[] buf, int off, int len) throws MessageFormatException {
        int codeAt = checkHeader(buf, off, len);
        Code code = Code.valueOf(buf[codeAt] & 0xFF);
        if (!code.isSignaling()) {
            throw new IllegalArgumentException(code + " is not a signaling code: use parseMessage");
        }
        SignalingRules.checkCode(code);
        int tkl = buf[off] & 0x0F;
        int pos = codeAt + 1;
        int end = off + len;
        Token token = Token.of(buf, pos, tkl);
        pos += tkl;
        long scanned = scanOptions(buf, pos, end, code, token);
        int count = OptionCodec.count(scanned);
        OptionSet options = count == 0 ? OptionSet.EMPTY
                : OptionSet.fromWire(buf, OptionCodec.index(buf, pos, count), count);
        SignalingRules.checkOptions(code, token, options);
        int payloadStart = OptionCodec.payloadStart(scanned);
        byte[] payload = Arrays.copyOfRange(buf, payloadStart, end);
        return SignalingMessage.of(code, token, options, payload);
    }

    private Message parseMessage(byte[] buf, int off, int len, EndpointContext peer, long receiveNanos,
            boolean share) throws MessageFormatException {
        int codeAt = checkHeader(buf, off, len);
        Code code = Code.valueOf(buf[codeAt] & 0xFF);
        if (code.isSignaling()) {
            throw new IllegalArgumentException(code + " is a signaling code: use parseSignal");
        }
        int tkl = buf[off] & 0x0F;
        int pos = codeAt + 1;
        int end = off + len;
        if (code.isEmpty()) {
            if (pos != end) {
                throw new MessageFormatException("Empty message (0.00) with " + (end - pos)
                        + " bytes after the code, ignored (RFC 8323 3.4)", Verdict.IGNORE, code, null, -1);
            }
            return EmptyMessage.received(null, -1, peer, receiveNanos);
        }
        int cls = code.codeClass();
        if (cls == 1 || cls == 6) {
            throw abort("code " + code + " has a reserved class (RFC 7252 4.2)", code, null);
        }
        Token token = Token.of(buf, pos, tkl);
        pos += tkl;
        long scanned = scanOptions(buf, pos, end, code, token);
        int count = OptionCodec.count(scanned);
        OptionSet options = OptionSet.EMPTY;
        if (count > 0) {
            int[] index = OptionCodec.index(buf, pos, count);
            options = share ? OptionSet.wrapWire(buf, index) : OptionSet.fromWire(buf, index, count);
        }
        int payloadStart = OptionCodec.payloadStart(scanned);
        // type and MID stay unset (null, -1): the frame has neither (RFC 8323 3.2)
        if (code.isRequest()) {
            return Request.builder(code).token(token).options(options)
                    .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
        }
        return Response.builder(code).token(token).options(options)
                .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
    }

    /**
     * Checks range, length fields, size limit and TKL, so that code and token can be read
     * unchecked afterwards.
     *
     * @return the offset of the code byte
     */
    private int checkHeader(byte[] buf, int off, int len) throws MessageFormatException {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw abort("buffer range " + off + "+" + len + " is outside " + buf.length + " bytes", null, null);
        }
        if (len > maxMessageSize) {
            throw tooLarge(len);
        }
        if (len < 2) {
            throw abort("message of " + len + " bytes is shorter than the 2-byte header (RFC 8323 "
                    + (framing == ReliableFraming.TCP ? "3.2)" : "4.2)"), null, null);
        }
        int nibble = (buf[off] & 0xFF) >>> 4;
        int tkl = buf[off] & 0x0F;
        int codeAt;
        if (framing == ReliableFraming.WEBSOCKET) {
            if (nibble != 0) {
                throw abort("Len " + nibble + " in a WebSocket message, must be 0 (RFC 8323 4.2)", null, null);
            }
            codeAt = off + 1;
        } else {
            int ext = LengthField.extraBytes(nibble);
            if (len < 2 + ext) {
                throw abort("frame of " + len + " bytes ends inside its header: Len " + nibble + " takes "
                        + ext + " extended length bytes and a code (RFC 8323 3.2)", null, null);
            }
            codeAt = off + 1 + ext;
            long announced = 2L + ext + tkl + LengthField.read(nibble, buf, off + 1);
            if (announced > maxMessageSize) {
                throw tooLarge(announced);
            }
            if (announced != len) {
                throw abort("frame header announces " + announced + " bytes, the frame has " + len
                        + " (RFC 8323 3.2)", Code.valueOf(buf[codeAt] & 0xFF), null);
            }
        }
        Code code = Code.valueOf(buf[codeAt] & 0xFF);
        if (tkl > Token.MAX_LENGTH) {
            throw abort("TKL " + tkl + " is reserved (RFC 8323 3.2, RFC 7252 3)", code, null);
        }
        if (codeAt + 1 + tkl > off + len) {
            throw abort("TKL " + tkl + " but only " + (off + len - codeAt - 1) + " token bytes follow", code, null);
        }
        return codeAt;
    }

    private MessageFormatException tooLarge(long size) {
        return abort("message of " + size + " bytes exceeds the maximum message size " + maxMessageSize
                + " (RFC 8323 5.3.1)", null, null);
    }

    private static long scanOptions(byte[] buf, int pos, int end, Code code, Token token)
            throws MessageFormatException {
        try {
            return OptionCodec.scan(buf, pos, end);
        } catch (OptionCodec.Malformed e) {
            throw abort(e.getMessage(), code, token);
        }
    }

    private static MessageFormatException abort(String reason, Code code, Token token) {
        return new MessageFormatException(reason, Verdict.ABORT, code, token, -1);
    }
}
