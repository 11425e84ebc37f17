package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;

/**
 * A datagram that is not a well-formed CoAP message (RFC 7252 §3, §4.1), with as much of the
 * header as could be read so that the endpoint can react as RFC 7252 §4.2/§4.3 say: reject a CON
 * with RST (needs {@link #mid()}), ignore a NON, and silently drop what {@link #isSilentDrop()}
 * marks (version other than 1).
 *
 * <p>Checked, so that a receive path cannot forget the case; the parser throws nothing else.
 */
public final class MessageFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int mid;
    private final Type type;
    private final Code code;
    private final Token token;
    private final boolean optionsParsed;
    private final boolean silentDrop;

    MessageFormatException(String reason, int mid, Type type, Code code, Token token,
            boolean optionsParsed, boolean silentDrop) {
        super(reason, null, false, false); // a format error is an expected outcome: no stack trace
        this.mid = mid;
        this.type = type;
        this.code = code;
        this.token = token;
        this.optionsParsed = optionsParsed;
        this.silentDrop = silentDrop;
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

    @Override
    public String toString() {
        return "MessageFormatException: " + getMessage() + (mid >= 0 ? " (mid=" + mid + ", " + type + ")" : "")
                + (silentDrop ? " [silent drop]" : "");
    }
}
