package io.stagecoach.core.server.internal;

import io.stagecoach.core.coap.OptionSet;

/**
 * Shared option sets holding only a Content-Format (RFC 7252 §5.10.3), for the common answer
 * "payload in format n". Building that set per response through {@link OptionSet.Builder} cost
 * ~200 B per request (builder, list, option, packed arrays); an {@link OptionSet} is immutable,
 * so one instance per format serves every response.
 */
public final class ContentFormatSets {

    /** Formats below this are cached (text 0, link-format 40, JSON 50, CBOR 60, SenML 110..113...). */
    static final int CACHED = 256;

    private static final OptionSet[] SETS = new OptionSet[CACHED];

    private ContentFormatSets() {
    }

    /**
     * The set holding only Content-Format {@code format}.
     *
     * @throws IllegalArgumentException if {@code format} is not 0..65535
     */
    public static OptionSet only(int format) {
        if (format < 0 || format >= CACHED) {
            return OptionSet.builder().contentFormat(format).build(); // validates and names the bound
        }
        OptionSet set = SETS[format];
        if (set == null) {
            // Racing threads may each build one: harmless, the sets are equal and immutable
            // (final fields, so a set read through the array is always seen complete).
            set = OptionSet.builder().contentFormat(format).build();
            SETS[format] = set;
        }
        return set;
    }
}
