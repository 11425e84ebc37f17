package io.stagecoach.core.codec;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.SignalingOption;
import io.stagecoach.core.coap.Token;

/**
 * The checks a well-framed signaling message must pass before the endpoint sees it (RFC 8323
 * §5). Each failure is an {@link MessageFormatException.Verdict#ABORT}:
 * <ul>
 *   <li>a code of class 7 other than 7.01..7.05: RFC 8323 defines no others and gives no way to
 *       ignore a signal the peer relies on (aiocoap aborts too);
 *   <li>an option not defined for the code with a critical (odd) number (§5.2); in a CSM the
 *       Abort names it in Bad-CSM-Option (§5.6);
 *   <li>in a CSM, a defined option with a value of undefined length, e.g. a 5-byte
 *       Max-Message-Size: the CSM is invalid, and §3.3 has an invalid CSM abort the connection,
 *       with Bad-CSM-Option naming the option (§5.6, "parameter problem with the value").
 * </ul>
 * What passes may still carry unknown <em>elective</em> options, a repeated non-repeatable
 * option, or (outside a CSM) a value of undefined length: those are ignored (§5.2, RFC 7252
 * §5.4.3, §5.4.5) and listed by {@code SignalingMessage.unrecognizedOptions()}.
 */
final class SignalingRules {

    private SignalingRules() {
    }

    /** Refuses a signaling code RFC 8323 does not define. */
    static void checkCode(Code code) throws MessageFormatException {
        if (code.value() < Code.CSM.value() || code.value() > Code.ABORT.value()) {
            throw new MessageFormatException("unknown signaling code " + code.toDigits() + " (RFC 8323 5.1)",
                    MessageFormatException.Verdict.ABORT, code, null, -1);
        }
    }

    /** Refuses unknown critical options, and invalid values of the options a CSM defines. */
    static void checkOptions(Code code, Token token, OptionSet options) throws MessageFormatException {
        boolean csm = code == Code.CSM;
        for (int i = 0; i < options.size(); i++) {
            int n = options.number(i);
            SignalingOption def = SignalingOption.find(code, n);
            if (def == null) {
                if (SignalingOption.isCritical(n)) {
                    throw new MessageFormatException("unknown critical option " + n + " in " + code
                            + " (RFC 8323 5.2)", MessageFormatException.Verdict.ABORT, code, token, csm ? n : -1);
                }
            } else if (csm && !def.acceptsLength(options.valueLength(i))) {
                throw new MessageFormatException("CSM option " + def + " of " + options.valueLength(i)
                        + " bytes, defined " + def.minLength() + ".." + def.maxLength() + " (RFC 8323 3.3)",
                        MessageFormatException.Verdict.ABORT, code, token, n);
            }
        }
    }
}
