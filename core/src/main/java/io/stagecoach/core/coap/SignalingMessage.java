package io.stagecoach.core.coap;

import io.stagecoach.core.coap.OptionNumber.Format;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A signaling message of CoAP over TCP, TLS or WebSockets (RFC 8323 §5): a 7.xx code, a token,
 * options whose numbers mean something only together with the code (§5.2, see
 * {@link SignalingOption}), and an optional payload, which is a diagnostic text (§5.1, RFC 7252
 * §5.5.2). Immutable.
 *
 * <p>Not a {@link Message}: signaling belongs to the connection, not to the request/response
 * layer, has no type or message ID over any transport, and must never reach the UDP stack.
 *
 * <p>The typed accessors read the first occurrence of their option that is defined for this code
 * and has a defined length; everything else is <em>unrecognized</em> ({@link
 * #unrecognizedOptions()}), which for the elective options is what RFC 8323 §5.2 and RFC 7252
 * §5.4.1 say to do: ignore it. The options are kept as received, so a message re-encodes byte for
 * byte. The decoder (the codec's {@code TcpMessageParser}) refuses a message with an unrecognized
 * <em>critical</em> option before it gets here.
 */
public final class SignalingMessage {

    private static final byte[] NO_PAYLOAD = new byte[0];

    /** Largest Max-Message-Size a 4-byte uint holds. */
    public static final long MAX_MESSAGE_SIZE_LIMIT = 0xFFFF_FFFFL;

    private final Code code;
    private final Token token;
    private final OptionSet options;
    private final byte[] payload;

    private SignalingMessage(Code code, Token token, OptionSet options, byte[] payload) {
        if (!code.isSignaling()) {
            throw new IllegalArgumentException("a signaling message needs a 7.xx code, got " + code);
        }
        this.code = code;
        this.token = Objects.requireNonNull(token, "token");
        this.options = Objects.requireNonNull(options, "options");
        this.payload = payload;
    }

    /**
     * A signaling message with exactly these fields, unchecked beyond the 7.xx code: for decoders,
     * and to send options this version does not define. {@code options} must be in wire order.
     */
    public static SignalingMessage of(Code code, Token token, OptionSet options, byte[] payload) {
        return new SignalingMessage(code, token, options, payload.length == 0 ? NO_PAYLOAD : payload.clone());
    }

    /**
     * A 7.01 CSM (RFC 8323 §5.3). A CSM without options is valid and changes nothing.
     *
     * @param maxMessageSize bytes this endpoint can receive, whole frame (§5.3.1), or -1 to leave
     *     the option out (then the base value 1152 or an earlier CSM's value stays in force)
     * @param blockWiseTransfer whether to include Block-Wise-Transfer (§5.3.2)
     */
    public static SignalingMessage csm(long maxMessageSize, boolean blockWiseTransfer) {
        List<Option> opts = new ArrayList<>(2);
        if (maxMessageSize != -1) {
            opts.add(uint(SignalingOption.MAX_MESSAGE_SIZE, maxMessageSize, MAX_MESSAGE_SIZE_LIMIT));
        }
        if (blockWiseTransfer) {
            opts.add(Option.wrap(SignalingOption.BLOCK_WISE_TRANSFER.number(), NO_PAYLOAD));
        }
        return new SignalingMessage(Code.CSM, Token.EMPTY, OptionSet.pack(opts), NO_PAYLOAD);
    }

    /** A 7.02 Ping (RFC 8323 §5.4), asking with Custody for a Pong after earlier messages are done. */
    public static SignalingMessage ping(Token token, boolean custody) {
        return new SignalingMessage(Code.PING, token, custody(custody), NO_PAYLOAD);
    }

    /** A 7.03 Pong with {@code token}; a Pong answers a Ping with the Ping's token (§5.4). */
    public static SignalingMessage pong(Token token, boolean custody) {
        return new SignalingMessage(Code.PONG, token, custody(custody), NO_PAYLOAD);
    }

    /** The Pong answering {@code ping}: the same token (RFC 8323 §5.4). */
    public static SignalingMessage pongFor(SignalingMessage ping, boolean custody) {
        if (ping.code != Code.PING) {
            throw new IllegalArgumentException("a Pong answers a 7.02 Ping, not " + ping.code);
        }
        return pong(ping.token, custody);
    }

    /**
     * A 7.04 Release (RFC 8323 §5.5).
     *
     * @param alternativeAddresses authorities to reconnect to instead, each 1..255 bytes of UTF-8
     * @param holdOffSeconds seconds not to reconnect (0..16777215), or -1 to leave Hold-Off out
     * @param diagnostic diagnostic payload, or {@code null} or "" for none
     */
    public static SignalingMessage release(List<String> alternativeAddresses, long holdOffSeconds,
            String diagnostic) {
        List<Option> opts = new ArrayList<>(alternativeAddresses.size() + 1);
        for (String a : alternativeAddresses) {
            byte[] v = a.getBytes(StandardCharsets.UTF_8);
            if (!SignalingOption.ALTERNATIVE_ADDRESS.acceptsLength(v.length)) {
                throw new IllegalArgumentException("Alternative-Address must be 1..255 bytes, got " + v.length);
            }
            opts.add(Option.wrap(SignalingOption.ALTERNATIVE_ADDRESS.number(), v));
        }
        if (holdOffSeconds != -1) {
            opts.add(uint(SignalingOption.HOLD_OFF, holdOffSeconds, 0xFF_FFFFL));
        }
        return new SignalingMessage(Code.RELEASE, Token.EMPTY, OptionSet.pack(opts), text(diagnostic));
    }

    /**
     * A 7.05 Abort (RFC 8323 §5.6).
     *
     * @param badCsmOption the number of the CSM option that could not be processed (0..65535), or
     *     -1 to leave Bad-CSM-Option out
     * @param diagnostic diagnostic payload, which §5.6 says should be there; {@code null} or "" for none
     */
    public static SignalingMessage abort(int badCsmOption, String diagnostic) {
        List<Option> opts = new ArrayList<>(1);
        if (badCsmOption != -1) {
            opts.add(uint(SignalingOption.BAD_CSM_OPTION, badCsmOption, 0xFFFFL));
        }
        return new SignalingMessage(Code.ABORT, Token.EMPTY, OptionSet.pack(opts), text(diagnostic));
    }

    private static OptionSet custody(boolean custody) {
        return custody ? OptionSet.pack(List.of(Option.wrap(SignalingOption.CUSTODY.number(), NO_PAYLOAD)))
                : OptionSet.EMPTY;
    }

    private static Option uint(SignalingOption def, long value, long max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(def + " must be 0.." + max + ", got " + value);
        }
        return Option.wrap(def.number(), Bytes.uint(value));
    }

    private static byte[] text(String diagnostic) {
        return diagnostic == null || diagnostic.isEmpty() ? NO_PAYLOAD : diagnostic.getBytes(StandardCharsets.UTF_8);
    }

    public Code code() {
        return code;
    }

    public Token token() {
        return token;
    }

    /**
     * The options as received or built, in wire order. Use the positional accessors
     * ({@link OptionSet#number(int)} ...): the named getters of {@link OptionSet} read
     * request/response option numbers, which mean nothing here.
     */
    public OptionSet options() {
        return options;
    }

    /** A copy of the payload; empty when there is none. */
    public byte[] payload() {
        return payload.clone();
    }

    public int payloadLength() {
        return payload.length;
    }

    /** Copies the payload into {@code dst} at {@code off}; for encoders. */
    public void copyPayloadTo(byte[] dst, int off) {
        System.arraycopy(payload, 0, dst, off, payload.length);
    }

    /** The payload as UTF-8 text (a diagnostic payload, RFC 8323 §5.1); "" when there is none. */
    public String diagnostic() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** CSM Max-Message-Size in bytes, or -1 when absent or not a CSM (§5.3.1). */
    public long maxMessageSize() {
        int i = first(SignalingOption.MAX_MESSAGE_SIZE);
        return i < 0 ? -1 : uintValue(i);
    }

    /** Whether this CSM carries Block-Wise-Transfer (§5.3.2). */
    public boolean blockWiseTransfer() {
        return first(SignalingOption.BLOCK_WISE_TRANSFER) >= 0;
    }

    /** Whether this Ping or Pong carries Custody (§5.4.1). */
    public boolean custody() {
        return first(SignalingOption.CUSTODY) >= 0;
    }

    /** This Release's Alternative-Address values in order (§5.5); empty when none. */
    public List<String> alternativeAddresses() {
        if (!SignalingOption.ALTERNATIVE_ADDRESS.appliesTo(code)) {
            return Collections.emptyList();
        }
        List<String> out = null;
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == SignalingOption.ALTERNATIVE_ADDRESS.number() && isRecognized(i)) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                byte[] v = new byte[options.valueLength(i)];
                options.copyValue(i, v, 0);
                out.add(new String(v, StandardCharsets.UTF_8));
            }
        }
        return out == null ? Collections.emptyList() : Collections.unmodifiableList(out);
    }

    /** This Release's Hold-Off in seconds, or -1 when absent (§5.5). */
    public long holdOff() {
        int i = first(SignalingOption.HOLD_OFF);
        return i < 0 ? -1 : uintValue(i);
    }

    /** This Abort's Bad-CSM-Option, the number of the refused CSM option, or -1 when absent (§5.6). */
    public int badCsmOption() {
        int i = first(SignalingOption.BAD_CSM_OPTION);
        return i < 0 ? -1 : (int) uintValue(i);
    }

    /**
     * The options the typed accessors skip: not defined for this code, a value of undefined
     * length, or a repeat of a non-repeatable option (RFC 7252 §5.4.1, §5.4.3, §5.4.5 applied to
     * signaling options as RFC 8323 §5.2 says).
     */
    public List<Option> unrecognizedOptions() {
        List<Option> out = null;
        for (int i = 0; i < options.size(); i++) {
            if (!isRecognized(i)) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                out.add(options.option(i));
            }
        }
        return out == null ? Collections.emptyList() : out;
    }

    /** Whether the {@code i}-th option is recognized (see {@link #unrecognizedOptions()}). */
    public boolean isRecognized(int i) {
        int n = options.number(i);
        SignalingOption def = SignalingOption.find(code, n);
        if (def == null || !def.acceptsLength(options.valueLength(i))) {
            return false;
        }
        return def.isRepeatable() || i == 0 || options.number(i - 1) != n;
    }

    /** Position of the first occurrence of a non-repeatable option if recognized, else -1. */
    private int first(SignalingOption def) {
        if (!def.appliesTo(code)) {
            return -1;
        }
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == def.number()) {
                return isRecognized(i) ? i : -1;
            }
        }
        return -1;
    }

    private long uintValue(int i) {
        byte[] v = new byte[options.valueLength(i)];
        options.copyValue(i, v, 0);
        return Bytes.uint(v, 0, v.length);
    }

    /** Equal when code, token, options and payload are. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SignalingMessage)) {
            return false;
        }
        SignalingMessage m = (SignalingMessage) o;
        return code == m.code && token.equals(m.token) && options.equals(m.options)
                && Arrays.equals(payload, m.payload);
    }

    @Override
    public int hashCode() {
        return ((code.value() * 31 + token.hashCode()) * 31 + options.hashCode()) * 31 + Arrays.hashCode(payload);
    }

    /** E.g. {@code 7.01 CSM token=[] [Max-Message-Size=1152, Block-Wise-Transfer]}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(code).append(" token=").append(token);
        if (!options.isEmpty()) {
            sb.append(" [");
            for (int i = 0; i < options.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                appendOption(sb, i);
            }
            sb.append(']');
        }
        if (payload.length > 0) {
            sb.append(" diagnostic=\"").append(diagnostic()).append('"');
        }
        return sb.toString();
    }

    private void appendOption(StringBuilder sb, int i) {
        Option o = options.option(i);
        SignalingOption def = SignalingOption.find(code, o.number());
        sb.append(SignalingOption.nameOf(code, o.number()));
        Format f = def == null || !isRecognized(i) ? Format.OPAQUE : def.format();
        if (f == Format.UINT) {
            sb.append('=').append(o.asUint());
        } else if (f == Format.STRING) {
            sb.append("=\"").append(o.asString()).append('"');
        } else if (f == Format.OPAQUE || o.length() > 0) {
            sb.append("=0x").append(o.hex());
        }
    }
}
