package io.stagecoach.core.coap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Option validity for a request or response received over a reliable transport (TCP, TLS,
 * WebSockets), where a Block1 or Block2 option with SZX 7 is a legal BERT option (RFC 8323 §6)
 * instead of the invalid option it is over UDP (RFC 7959 §2.2).
 *
 * <p>{@link OptionSet} does not know the transport its message came over, so its
 * {@link OptionSet#invalidOptions()}, {@link OptionSet#block1()} and {@link OptionSet#block2()}
 * keep the UDP rules. An endpoint on a reliable transport asks this class instead; every other
 * rule (value lengths, repetition of non-repeatable options) is the same.
 */
public final class ReliableTransportOptions {

    private ReliableTransportOptions() {
    }

    /** Whether the {@code i}-th option is valid over a reliable transport. */
    public static boolean isValid(OptionSet options, int i) {
        if (options.isValid(i)) {
            return true;
        }
        int n = options.number(i);
        if (n != OptionNumber.BLOCK1.number() && n != OptionNumber.BLOCK2.number()) {
            return false;
        }
        if (i > 0 && options.number(i - 1) == n) {
            return false; // a second Block option of the same number stays invalid (RFC 7252 §5.4.5)
        }
        // a first Block option of 0..3 bytes that OptionSet refuses has SZX 7: BERT
        return options.valueLength(i) <= 3;
    }

    /** As {@link OptionSet#invalidOptions()}, with BERT options counted as valid. */
    public static List<Option> invalidOptions(OptionSet options) {
        List<Option> out = null;
        for (int i = 0; i < options.size(); i++) {
            if (!isValid(options, i)) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                out.add(options.option(i));
            }
        }
        return out == null ? Collections.emptyList() : out;
    }

    /** Block1 (RFC 7959 §2.1), BERT included, or {@code null} when absent or invalid. */
    public static BlockOption block1(OptionSet options) {
        return block(options, OptionNumber.BLOCK1.number());
    }

    /** Block2 (RFC 7959 §2.1), BERT included, or {@code null} when absent or invalid. */
    public static BlockOption block2(OptionSet options) {
        return block(options, OptionNumber.BLOCK2.number());
    }

    private static BlockOption block(OptionSet options, int number) {
        for (int i = 0; i < options.size(); i++) {
            if (options.number(i) == number) {
                if (!isValid(options, i)) {
                    return null;
                }
                byte[] value = new byte[options.valueLength(i)];
                options.copyValue(i, value, 0);
                return BlockOption.decode(value, true);
            }
        }
        return null;
    }
}
