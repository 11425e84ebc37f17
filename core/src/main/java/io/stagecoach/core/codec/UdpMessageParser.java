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
import java.util.Arrays;

/**
 * Decodes one CoAP-over-UDP datagram (RFC 7252 §3). Thread-safe; its only state is a bounded
 * table of recent option sets (see {@link #UdpMessageParser()}).
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
 * caller hands over, and {@link #parseLent} from one copy of their span in a buffer the caller
 * reuses. Both give a datagram whose options are encoded exactly as in one of the parser's recent
 * datagrams the set decoded then (immutable and equal, so sharing it is invisible), which costs
 * no set and no copy.
 */
public final class UdpMessageParser {

    /** How a message's options hold their values: copied, read from the caller's array, from a copy of their span. */
    private static final int COPY = 0;
    private static final int SHARE = 1;
    private static final int LENT = 2;

    /** Option sets decoded lately, for {@link #parseShared} and {@link #parseLent}. */
    private final RecentOptions recent = new RecentOptions();

    /**
     * A parser; it may be shared between threads. Besides its datagrams' own copies, it keeps the
     * option sets of recent received datagrams in a bounded table (about 20 KiB at most) to give
     * the next datagram with the same options the same immutable set.
     */
    public UdpMessageParser() {
    }

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
        return parse(buf, offset, length, peer, receiveNanos, COPY);
    }

    /**
     * Parses a whole datagram that the caller hands over: the message's options read their values
     * from {@code datagram} in place ({@link OptionSet#wrapWire}) instead of copies, which saves
     * ~64 B per message. Nobody may modify the array afterwards; the endpoint passes
     * {@code RawData.sharedBytes()}, which is never modified. Token and payload are still copied.
     */
    public Message parseShared(byte[] datagram, EndpointContext peer, long receiveNanos) throws MessageFormatException {
        return parse(datagram, 0, datagram.length, peer, receiveNanos, SHARE);
    }

    /**
     * Parses {@code length} bytes of {@code buf} from {@code offset} that the caller lends for the
     * call only (a connector's receive buffer, {@code RawDataReceiver.receiveDatagram}): the
     * message's options read their values from one copy of the span that holds them (values and the
     * option headers between them) instead of a copy per value plus an index, so the message costs
     * one small array more than {@link #parseShared} and no array of the whole datagram. Token and
     * payload are copied as always; the caller may reuse {@code buf} once this returns.
     */
    public Message parseLent(byte[] buf, int offset, int length, EndpointContext peer, long receiveNanos)
            throws MessageFormatException {
        return parse(buf, offset, length, peer, receiveNanos, LENT);
    }

    private Message parse(byte[] buf, int offset, int length, EndpointContext peer, long receiveNanos, int values)
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
        int tokenAt = pos;
        pos += tkl;

        // Two passes over the options (OptionCodec): the first checks and counts them, the second
        // records them in an array of the exact size, which a shared set keeps (~64 B saved).
        int optionsStart = pos;
        long scanned;
        try {
            scanned = OptionCodec.scan(buf, pos, end);
        } catch (OptionCodec.Malformed e) {
            throw new MessageFormatException(e.getMessage(), mid, type, code, Token.of(buf, tokenAt, tkl),
                    e.optionsParsed, false);
        }
        int count = OptionCodec.count(scanned);
        int payloadStart = OptionCodec.payloadStart(scanned);
        OptionSet options = OptionSet.EMPTY;
        if (count > 0) {
            int optionsEnd = payloadStart < end ? payloadStart - 1 : end; // before the payload marker
            options = values == COPY ? OptionSet.fromWire(buf, OptionCodec.index(buf, optionsStart, count), count)
                    : receivedOptions(buf, optionsStart, optionsEnd, count, values);
        }
        if (code.isRequest()) {
            return Request.builder(code).type(type).mid(mid).token(buf, tokenAt, tkl).options(options)
                    .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
        }
        return Response.builder(code).type(type).mid(mid).token(buf, tokenAt, tkl).options(options)
                .payload(buf, payloadStart, end - payloadStart).peer(peer).receiveNanos(receiveNanos).build();
    }

    /**
     * The options of a datagram the endpoint receives ({@link #parseShared}, {@link #parseLent}):
     * the set kept for the same encoded options when there is one ({@link RecentOptions}), else a
     * new one, kept when it came twice in a row. A kept set is always built from a copy of its
     * span, never from the datagram, which it would otherwise keep alive or see reused.
     */
    private OptionSet receivedOptions(byte[] buf, int from, int to, int count, int values) {
        boolean keepable = RecentOptions.keepable(to - from, count);
        int hash = 0;
        boolean keep = false;
        if (keepable) {
            hash = RecentOptions.hash(buf, from, to);
            OptionSet kept = recent.find(buf, from, to, hash);
            if (kept != null) {
                return kept;
            }
            keep = recent.missed(hash);
        }
        OptionSet options = decode(buf, from, count, keep ? LENT : values);
        if (keep) {
            recent.keep(buf, from, to, hash, options);
        }
        return options;
    }

    /** A set of the {@code count} options at {@code from}, their values read as {@code values} says. */
    private static OptionSet decode(byte[] buf, int from, int count, int values) {
        if (count == 1 && buf.length < 1 << 30) {
            // the most common request (one Uri-Path) needs no index array: the set packs it (32 B);
            // a lent buffer is reused by the connector, so its one value is copied first
            long one = OptionCodec.first(buf, from);
            int number = (int) one & 0x1FFFF;
            int valueAt = (int) (one >>> 34);
            int valueLength = (int) (one >>> 17) & 0x1FFFF;
            byte[] src = buf;
            if (values == LENT) {
                src = Arrays.copyOfRange(buf, valueAt, valueAt + valueLength);
                valueAt = 0;
            }
            return OptionSet.wrapWire(src, number, valueAt, valueLength);
        }
        int[] index = OptionCodec.index(buf, from, count);
        return values == SHARE ? OptionSet.wrapWire(buf, index) : OptionSet.wrapWire(spanOf(buf, index), index);
    }

    /**
     * A copy of {@code buf} from the first option value to the end of the last, with the offsets
     * of {@code index} moved to point into it.
     */
    private static byte[] spanOf(byte[] buf, int[] index) {
        int from = index[1];
        int to = index[index.length - 2] + index[index.length - 1];
        byte[] span = Arrays.copyOfRange(buf, from, to);
        for (int k = 1; k < index.length; k += 3) {
            index[k] -= from;
        }
        return span;
    }

    private static int mid(byte[] buf, int offset) {
        return (buf[offset + 2] & 0xFF) << 8 | (buf[offset + 3] & 0xFF);
    }

    private static MessageFormatException error(String reason, int mid, Type type, Code code, Token token) {
        return new MessageFormatException(reason, mid, type, code, token, false, false);
    }
}
