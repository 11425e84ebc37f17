package io.stagecoach.core.coap;

import io.stagecoach.core.coap.OptionNumber.Format;

/**
 * A signaling option definition (RFC 8323 §5.2, §11.2). Signaling option numbers are scoped by
 * the signaling code: number 2 is Max-Message-Size in a CSM, Custody in a Ping or Pong,
 * Alternative-Address in a Release and Bad-CSM-Option in an Abort. So a definition is found by
 * code and number together, {@link #find(Code, int)}, never by number alone, and these numbers
 * share nothing with {@link OptionNumber}.
 *
 * <p>Every option defined so far is elective (even number). Critical (odd) numbers follow RFC 7252
 * §5.4.6: a receiver that does not understand one must abort the connection (RFC 8323 §5.2).
 */
public final class SignalingOption {

    /** CSM 2: the largest message the sender can receive, whole frame (RFC 8323 §5.3.1). */
    public static final SignalingOption MAX_MESSAGE_SIZE =
            new SignalingOption(2, "Max-Message-Size", Format.UINT, 0, 4, false, Code.CSM, null);
    /** CSM 4: the sender supports block-wise transfers, with BERT above 1152 bytes (§5.3.2). */
    public static final SignalingOption BLOCK_WISE_TRANSFER =
            new SignalingOption(4, "Block-Wise-Transfer", Format.EMPTY, 0, 0, false, Code.CSM, null);
    /** Ping and Pong 2: the Pong comes after all earlier messages were processed (§5.4.1). */
    public static final SignalingOption CUSTODY =
            new SignalingOption(2, "Custody", Format.EMPTY, 0, 0, false, Code.PING, Code.PONG);
    /** Release 2, repeatable: an authority to reconnect to instead (§5.5). */
    public static final SignalingOption ALTERNATIVE_ADDRESS =
            new SignalingOption(2, "Alternative-Address", Format.STRING, 1, 255, true, Code.RELEASE, null);
    /** Release 4: seconds the peer should wait before reconnecting (§5.5). */
    public static final SignalingOption HOLD_OFF =
            new SignalingOption(4, "Hold-Off", Format.UINT, 0, 3, false, Code.RELEASE, null);
    /** Abort 2: the number of the CSM option the sender could not process (§5.6). */
    public static final SignalingOption BAD_CSM_OPTION =
            new SignalingOption(2, "Bad-CSM-Option", Format.UINT, 0, 2, false, Code.ABORT, null);

    private static final SignalingOption[] ALL = {
        MAX_MESSAGE_SIZE, BLOCK_WISE_TRANSFER, CUSTODY, ALTERNATIVE_ADDRESS, HOLD_OFF, BAD_CSM_OPTION,
    };

    private final int number;
    private final String name;
    private final Format format;
    private final int minLength;
    private final int maxLength;
    private final boolean repeatable;
    private final Code code;
    private final Code otherCode;

    private SignalingOption(int number, String name, Format format, int minLength, int maxLength,
            boolean repeatable, Code code, Code otherCode) {
        this.number = number;
        this.name = name;
        this.format = format;
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.repeatable = repeatable;
        this.code = code;
        this.otherCode = otherCode;
    }

    /** The definition of option {@code number} in a signaling message of {@code code}, or {@code null}. */
    public static SignalingOption find(Code code, int number) {
        for (SignalingOption o : ALL) {
            if (o.number == number && o.appliesTo(code)) {
                return o;
            }
        }
        return null;
    }

    /** Critical: odd number, as for request/response options (RFC 7252 §5.4.6, RFC 8323 §5.2). */
    public static boolean isCritical(int number) {
        return (number & 1) != 0;
    }

    /** The option's name in a message of {@code code}, e.g. "Custody", or "Option5" when undefined. */
    public static String nameOf(Code code, int number) {
        SignalingOption o = find(code, number);
        return o == null ? "Option" + number : o.name;
    }

    /** Whether the option is defined for signaling messages of {@code code}. */
    public boolean appliesTo(Code code) {
        return code == this.code || code == otherCode;
    }

    public int number() {
        return number;
    }

    /** The registry name, e.g. "Max-Message-Size". */
    public String name() {
        return name;
    }

    public Format format() {
        return format;
    }

    public int minLength() {
        return minLength;
    }

    public int maxLength() {
        return maxLength;
    }

    /** Whether the option may occur more than once (only Alternative-Address, §5.5). */
    public boolean isRepeatable() {
        return repeatable;
    }

    /** Whether a value of {@code length} bytes is within the defined length. */
    public boolean acceptsLength(int length) {
        return length >= minLength && length <= maxLength;
    }

    @Override
    public String toString() {
        return name;
    }
}
