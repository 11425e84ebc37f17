package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;

/**
 * A datagram or frame that is not a well-formed CoAP message, with as much of the header as could
 * be read and the {@link #verdict()}: what the receiving endpoint must do about it.
 *
 * <p><b>UDP</b> (RFC 7252 §3, §4.1): the endpoint reacts as RFC 7252 §4.2/§4.3 say: reject a CON
 * with RST (needs {@link #mid()}), ignore a NON ({@link Verdict#REJECT}), and silently drop what
 * {@link #isSilentDrop()} marks (version other than 1, {@link Verdict#SILENT_DROP}).
 *
 * <p><b>TCP, TLS, WebSockets</b> (RFC 8323): there is no type or MID to answer with, and after a
 * bad frame the byte stream cannot be trusted; RFC 8323 §5.6 has the recipient send an Abort and
 * not process the message, so almost every error is {@link Verdict#ABORT}: send
 * {@link #abortSignal()} (7.05 with {@link #diagnostic()} as payload and, for a refused CSM option,
 * Bad-CSM-Option {@link #badCsmOption()}), then close the connection. The one exception is an
 * Empty message (0.00) with content, {@link Verdict#IGNORE}, since RFC 8323 §3.4 has Empty
 * messages ignored whatever they are.
 *
 * <p>Checked, so that a receive path cannot forget the case; the parsers throw nothing else.
 */
public final class MessageFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What the receiving endpoint must do with the refused input. */
    public enum Verdict {
        /** UDP: answer a CON with RST, ignore anything else (RFC 7252 §4.2, §4.3). */
        REJECT,
        /** UDP: drop without any answer (version other than 1, RFC 7252 §3). */
        SILENT_DROP,
        /**
         * Reliable transports: send {@link MessageFormatException#abortSignal()} and close the
         * connection; do not process the message (RFC 8323 §5.6, and §5.2 for an unknown
         * critical signaling option, §3.3 for an invalid CSM).
         */
        ABORT,
        /** Reliable transports: skip this message, the connection goes on (RFC 8323 §3.4). */
        IGNORE
    }

    private final int mid;
    private final Type type;
    private final Code code;
    private final Token token;
    private final boolean optionsParsed;
    private final boolean silentDrop;
    private final Verdict verdict;
    private final int badCsmOption;

    /** A UDP format error: {@link Verdict#REJECT}, or {@link Verdict#SILENT_DROP} when {@code silentDrop}. */
    MessageFormatException(String reason, int mid, Type type, Code code, Token token,
            boolean optionsParsed, boolean silentDrop) {
        this(reason, mid, type, code, token, optionsParsed, silentDrop ? Verdict.SILENT_DROP : Verdict.REJECT, -1);
    }

    /**
     * A format error on a reliable transport (no type, no MID).
     *
     * @param badCsmOption the CSM option number to report in the Abort, or -1
     */
    MessageFormatException(String reason, Verdict verdict, Code code, Token token, int badCsmOption) {
        this(reason, -1, null, code, token, false, verdict, badCsmOption);
    }

    private MessageFormatException(String reason, int mid, Type type, Code code, Token token,
            boolean optionsParsed, Verdict verdict, int badCsmOption) {
        super(reason, null, false, false); // a format error is an expected outcome: no stack trace
        this.mid = mid;
        this.type = type;
        this.code = code;
        this.token = token;
        this.optionsParsed = optionsParsed;
        this.silentDrop = verdict == Verdict.SILENT_DROP;
        this.verdict = verdict;
        this.badCsmOption = badCsmOption;
    }

    /** Why the datagram was refused, e.g. "TKL 9 is reserved (RFC 7252 3)". */
    public String reason() {
        return getMessage();
    }

    /** The MID when the 4-byte header was readable, else -1. */
    public int mid() {
        return mid;
    }

    /** Whether the 4-byte header was readable, i.e. {@link #mid()} is valid. */
    public boolean hasMid() {
        return mid >= 0;
    }

    /** The message type when the first byte was readable, else {@code null}. */
    public Type type() {
        return type;
    }

    /** The code when the header was readable, else {@code null}. */
    public Code code() {
        return code;
    }

    /** The token when it was read completely, else {@code null}. */
    public Token token() {
        return token;
    }

    /**
     * Whether header, token and every option parsed and the error came later (a payload marker
     * with nothing after it). Only then is the request's content known well enough for an
     * answer other than RST.
     */
    public boolean optionsParsed() {
        return optionsParsed;
    }

    /** Whether the datagram must be dropped without any answer (version != 1, RFC 7252 §3). */
    public boolean isSilentDrop() {
        return silentDrop;
    }

    /** What the endpoint must do (see {@link Verdict}). */
    public Verdict verdict() {
        return verdict;
    }

    /** Whether the connection must be aborted ({@link Verdict#ABORT}). */
    public boolean isAbort() {
        return verdict == Verdict.ABORT;
    }

    /**
     * The text for a diagnostic payload (RFC 7252 §5.5.2), e.g. in the Abort: the reason, which
     * names the rule broken and never echoes the peer's bytes beyond numbers.
     */
    public String diagnostic() {
        return getMessage();
    }

    /** The CSM option number the Abort reports in Bad-CSM-Option (RFC 8323 §5.6), or -1. */
    public int badCsmOption() {
        return badCsmOption;
    }

    /**
     * The 7.05 Abort to send before closing (RFC 8323 §5.6): {@link #diagnostic()} as payload and
     * Bad-CSM-Option when {@link #badCsmOption()} is set; {@code null} unless {@link #isAbort()}.
     */
    public SignalingMessage abortSignal() {
        return verdict == Verdict.ABORT ? SignalingMessage.abort(badCsmOption, diagnostic()) : null;
    }

    @Override
    public String toString() {
        String mark = "";
        if (silentDrop) {
            mark = " [silent drop]";
        } else if (verdict == Verdict.ABORT) {
            mark = badCsmOption >= 0 ? " [abort, Bad-CSM-Option " + badCsmOption + "]" : " [abort]";
        } else if (verdict == Verdict.IGNORE) {
            mark = " [ignore]";
        }
        return "MessageFormatException: " + getMessage() + (mid >= 0 ? " (mid=" + mid + ", " + type + ")" : "") + mark;
    }
}
