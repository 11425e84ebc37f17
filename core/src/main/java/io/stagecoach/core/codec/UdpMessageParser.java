package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.EndpointContext;

/**
 * Decodes one CoAP-over-UDP datagram (RFC 7252 §3). Stateless and thread-safe.
 *
 * <p>Format errors raise {@link MessageFormatException}, never anything else: a datagram shorter
 * than 4 bytes, TKL 9..15, a truncated token, option value or extended delta/length, the nibble 15
 * anywhere but in a full 0xFF payload marker, a payload marker with no payload, an option number
 * above 65535, an Empty (0.00) message with any byte after the header (§4.1), and a code of the
 * reserved classes 1, 6 and 7 (rejected like a format error, §4.2). Version != 1 raises an
 * exception marked {@linkplain MessageFormatException#isSilentDrop() silent drop}.
 *
 * <p>Option <em>values</em> are not validated here: an out-of-range value (a 300-byte Uri-Host,
 * a Block2 with SZX 7) is kept and reported by {@link OptionSet#invalidOptions()}, because RFC 7252
 * §5.4.3 makes it an unrecognized option, whose handling (4.02 for a critical one in a CON
 * request, ignoring an elective one) is the endpoint's decision, not a format error. Nor is the
 * type checked against the code (a request in an ACK): that too is the endpoint's business.
 *
 * <p>Token, option values and payload are copied out, so the caller may reuse the buffer;
 * {@link #parseShared} instead lets the message read its option values from a datagram the
 * caller hands over.
 */
public final class UdpMessageParser {

    private static final int PAYLOAD_MARKER = 0xFF;

    public Message parse(byte[] datagram) throws MessageFormatException {
        return parse(datagram, 0, datagram.length, null, 0);
    }

    /** Parses a whole datagram received from {@code peer} at {@code receiveNanos}. */
    public Message parse(byte[] datagram, EndpointContext peer, long receiveNanos) throws MessageFormatException {
        return parse(datagram, 0, datagram.length, peer, receiveNanos);
    }

    /** Parses {@code length} bytes of {@code buf} from {@code offset}. */
    public Message parse(byte[] buf, int offset, int length, EndpointContext peer, long receiveNanos)
            throws MessageFormatException {
        return parse(buf, offset, length, peer, receiveNanos, false);
    }

    /**
     * Parses a whole datagram that the caller hands over: the message's options read their values
     * from {@code datagram} in place ({@link OptionSet#wrapWire}) instead of copies, which saves
     * ~64 B per message. Nobody may modify the array afterwards; the endpoint passes
     * {@code RawData.sharedBytes()}, which is never modified. Token and payload are still copied.
     */
    public Message parseShared(byte[] datagram, EndpointContext peer, long receiveNanos) throws MessageFormatException {
        return parse(datagram, 0, datagram.length, peer, receiveNanos, true);
    }

    private Message parse(byte[] buf, int offset, int length, EndpointContext peer, long receiveNanos, boolean share)
            throws MessageFormatException {
        if (offset < 0 || length < 0 || offset + length > buf.length || offset + length < 0) {
            throw new MessageFormatException("buffer range " + offset + "+" + length + " is outside "
                    + buf.length + " bytes", -1, null, null, null, false, false);
        }
        int end = offset + length;
        if (length >= 1 && (buf[offset] & 0xC0) != 0x40) {
            throw new MessageFormatException("version " + ((buf[offset] & 0xFF) >>> 6)
                    + " is not 1 (RFC 7252 3)", length >= 4 ? mid(buf, offset) : -1,
                    Type.valueOf((buf[offset] >>> 4) & 3), null, null, false, true);
        }
        if (length < 4) {
            throw new MessageFormatException("datagram of " + length
                    + " bytes is shorter than the 4-byte header", -1,
                    length >= 1 ? Type.valueOf((buf[offset] >>> 4) & 3) : null, null, null, false, false);
        }
        Type type = Type.valueOf((buf[offset] >>> 4) & 3);
        int tkl = buf[offset] & 0x0F;
        Code code = Code.valueOf(buf[offset + 1] & 0xFF);
        int mid = mid(buf, offset);
        if (tkl > Token.MAX_LENGTH) {
            throw error("TKL " + tkl + " is reserved (RFC 7252 3)", mid, type, code, null);
        }
        if (code.isEmpty()) {
            if (tkl != 0) {
                throw error("Empty message (0.00) with TKL " + tkl + " (RFC 7252 4.1)", mid, type, code, null);
            }
            if (length != 4) {
                throw error("Empty message (0.00) with " + (length - 4)
                        + " bytes after the header (RFC 7252 4.1)", mid, type, code, null);
            }
            return EmptyMessage.received(type, mid, peer, receiveNanos);
        }
        int cls = code.codeClass();
        if (cls == 1 || cls >= 6) {
            throw error("code " + code + " has a reserved class (RFC 7252 4.2)", mid, type, code, null);
        }
        int pos = offset + 4;
        if (pos + tkl > end) {
            throw error("TKL " + tkl + " but only " + (end - pos) + " token bytes follow", mid, type, code, null);
        }
        Token token = Token.of(buf, pos, tkl);
        pos += tkl;

        // Two passes over the options: this one checks and counts them, indexOptions records them
        // in an array of the exact size, which a shared set keeps (no growing scratch index, ~64 B).
        int optionsStart = pos;
        int count = 0;
        int number = 0;
        int payloadStart = end;
        while (pos < end) {
            int b = buf[pos++] & 0xFF;
            if (b == PAYLOAD_MARKER) {
                if (pos == end) {
                    throw new MessageFormatException("payload marker followed by an empty payload (RFC 7252 3)",
                            mid, type, code, token, true, false);
                }
                payloadStart = pos;
                break;
            }
            int delta = b >>> 4;
            int len = b & 0x0F;
            if (delta == 15 || len == 15) {
                throw error("option " + (delta == 15 ? "delta" : "length")
                        + " nibble 15 outside a payload marker (RFC 7252 3.1)", mid, type, code, token);
            }
            if (delta >= 13) {
                int ext = extended(buf, pos, end, delta, "delta", mid, type, code, token);
                pos += delta - 12;
                delta = ext;
            }
            if (len >= 13) {
                int ext = extended(buf, pos, end, len, "length", mid, type, code, token);
                pos += len - 12;
                len = ext;
            }
            number += delta;
            if (number > 65535) {
                throw error("option number " + number + " exceeds 65535", mid, type, code, token);
            }
            if (len > end - pos) {
                throw error("option " + number + " claims " + len + " bytes, only " + (end - pos)
                        + " follow", mid, type, code, token);
            }
            count++;
            pos += len;
        }
        OptionSet options = OptionSet.EMPTY;
        if (count > 0) {
            int[] index = indexOptions(buf, optionsStart, count);
            options = share ? OptionSet.wrapWire(buf, index) : OptionSet.fromWire(buf, index, count);
        }
        if (code.isRequest()) {
            return Request.builder(code).type(type).mid(mid).token(token).options(options)
                    .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
        }
        return Response.builder(code).type(type).mid(mid).token(token).options(options)
                .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
    }

    /**
     * The second pass over {@code count} options the first pass checked: (number, offset, length)
     * per option, offsets into {@code buf}.
     */
    private static int[] indexOptions(byte[] buf, int pos, int count) {
        int[] index = new int[3 * count];
        int number = 0;
        for (int k = 0; k < index.length; k += 3) {
            int b = buf[pos++] & 0xFF;
            int delta = b >>> 4;
            int len = b & 0x0F;
            if (delta >= 13) {
                int ext = delta == 13 ? (buf[pos] & 0xFF) + 13 : ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269;
                pos += delta - 12;
                delta = ext;
            }
            if (len >= 13) {
                int ext = len == 13 ? (buf[pos] & 0xFF) + 13 : ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269;
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

    private static int mid(byte[] buf, int offset) {
        return (buf[offset + 2] & 0xFF) << 8 | (buf[offset + 3] & 0xFF);
    }

    /** Reads the extended delta or length for nibble 13 (1 byte, +13) or 14 (2 bytes, +269). */
    private static int extended(byte[] buf, int pos, int end, int nibble, String what, int mid, Type type,
            Code code, Token token) throws MessageFormatException {
        int need = nibble - 12;
        if (end - pos < need) {
            throw error("option " + what + " " + nibble + " needs " + need + " more byte"
                    + (need == 1 ? "" : "s"), mid, type, code, token);
        }
        if (nibble == 13) {
            return (buf[pos] & 0xFF) + 13;
        }
        return ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF)) + 269;
    }

    private static MessageFormatException error(String reason, int mid, Type type, Code code, Token token) {
        return new MessageFormatException(reason, mid, type, code, token, false, false);
    }
}
