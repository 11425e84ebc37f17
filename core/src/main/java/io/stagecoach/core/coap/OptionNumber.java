package io.stagecoach.core.coap;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * An option number (RFC 7252 §5.4, §12.2) with what the registry says about it.
 *
 * <p>An open value: {@link #valueOf(int)} returns the registered constant for a known number and
 * a fresh, unregistered instance (format {@link Format#OPAQUE}, length 0..65535, not repeatable)
 * otherwise, so unknown options round-trip. Compare with {@link #equals(Object)} or by
 * {@link #number()}.
 *
 * <p>Which options an endpoint <em>recognizes</em> (RFC 7252 §5.4.1) is the endpoint's decision,
 * not this registry's: {@link #isKnown()} only says the number has a definition here. OSCORE (9)
 * for example is known, but an endpoint without RFC 8613 support must treat it as an unrecognized
 * critical option and answer a CON request with 4.02 Bad Option.
 */
public final class OptionNumber {

    /** The value format of an option (RFC 7252 §3.2). */
    public enum Format {
        /** Zero-length value. */
        EMPTY,
        /** Opaque bytes. */
        OPAQUE,
        /** Unsigned integer in network byte order, no leading zero bytes. */
        UINT,
        /** UTF-8 string in Net-Unicode form (RFC 5198). */
        STRING
    }

    private static final Map<Integer, OptionNumber> KNOWN = new HashMap<>();
    /** Numbers below this are looked up in {@link #BY_NUMBER}: every definition here, without boxing or hashing. */
    private static final int TABLE_SIZE = 512;
    /** The definitions by number, for numbers below {@link #TABLE_SIZE}; {@code null} for an unknown one. */
    private static final OptionNumber[] BY_NUMBER = new OptionNumber[TABLE_SIZE];

    public static final OptionNumber IF_MATCH = define(1, "If-Match", Format.OPAQUE, 0, 8, true);
    public static final OptionNumber URI_HOST = define(3, "Uri-Host", Format.STRING, 1, 255, false);
    public static final OptionNumber ETAG = define(4, "ETag", Format.OPAQUE, 1, 8, true);
    public static final OptionNumber IF_NONE_MATCH = define(5, "If-None-Match", Format.EMPTY, 0, 0, false);
    /** RFC 7641 §2. */
    public static final OptionNumber OBSERVE = define(6, "Observe", Format.UINT, 0, 3, false);
    public static final OptionNumber URI_PORT = define(7, "Uri-Port", Format.UINT, 0, 2, false);
    public static final OptionNumber LOCATION_PATH = define(8, "Location-Path", Format.STRING, 0, 255, true);
    /** RFC 8613 §2; kept as opaque bytes, never interpreted here. */
    public static final OptionNumber OSCORE = define(9, "OSCORE", Format.OPAQUE, 0, 255, false);
    public static final OptionNumber URI_PATH = define(11, "Uri-Path", Format.STRING, 0, 255, true);
    public static final OptionNumber CONTENT_FORMAT = define(12, "Content-Format", Format.UINT, 0, 2, false);
    public static final OptionNumber MAX_AGE = define(14, "Max-Age", Format.UINT, 0, 4, false);
    public static final OptionNumber URI_QUERY = define(15, "Uri-Query", Format.STRING, 0, 255, true);
    /** RFC 8768 §3. */
    public static final OptionNumber HOP_LIMIT = define(16, "Hop-Limit", Format.UINT, 1, 1, false);
    public static final OptionNumber ACCEPT = define(17, "Accept", Format.UINT, 0, 2, false);
    public static final OptionNumber LOCATION_QUERY = define(20, "Location-Query", Format.STRING, 0, 255, true);
    /** RFC 7959 §2.1. */
    public static final OptionNumber BLOCK2 = define(23, "Block2", Format.UINT, 0, 3, false);
    /** RFC 7959 §2.1. */
    public static final OptionNumber BLOCK1 = define(27, "Block1", Format.UINT, 0, 3, false);
    /** RFC 7959 §4. */
    public static final OptionNumber SIZE2 = define(28, "Size2", Format.UINT, 0, 4, false);
    public static final OptionNumber PROXY_URI = define(35, "Proxy-Uri", Format.STRING, 1, 1034, false);
    public static final OptionNumber PROXY_SCHEME = define(39, "Proxy-Scheme", Format.STRING, 1, 255, false);
    public static final OptionNumber SIZE1 = define(60, "Size1", Format.UINT, 0, 4, false);
    /** RFC 9175 §2.2. */
    public static final OptionNumber ECHO = define(252, "Echo", Format.OPAQUE, 1, 40, false);
    /** RFC 7967 §2. */
    public static final OptionNumber NO_RESPONSE = define(258, "No-Response", Format.UINT, 0, 1, false);
    /** RFC 9175 §3.2. */
    public static final OptionNumber REQUEST_TAG = define(292, "Request-Tag", Format.OPAQUE, 0, 8, true);

    /** Largest option number the wire format can carry (RFC 7252 §3.1). */
    public static final int MAX_NUMBER = 65535;

    /** Longest value of an option without a definition here (an opaque 0..65535 bytes). */
    static final int UNKNOWN_MAX_LENGTH = MAX_NUMBER;

    private final int number;
    private final String name;
    private final Format format;
    private final int minLength;
    private final int maxLength;
    private final boolean repeatable;
    private final boolean known;

    private OptionNumber(int number, String name, Format format, int minLength, int maxLength,
            boolean repeatable, boolean known) {
        this.number = number;
        this.name = name;
        this.format = format;
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.repeatable = repeatable;
        this.known = known;
    }

    private static OptionNumber define(int number, String name, Format format, int min, int max,
            boolean repeatable) {
        OptionNumber n = new OptionNumber(number, name, format, min, max, repeatable, true);
        KNOWN.put(number, n);
        if (number < TABLE_SIZE) {
            BY_NUMBER[number] = n;
        }
        return n;
    }

    /**
     * The definition of {@code number} here, or {@code null} for a number without one; a lookup
     * in an array for every option of RFC 7252 and its extensions (the codec asks per option).
     */
    static OptionNumber known(int number) {
        return number >= 0 && number < TABLE_SIZE ? BY_NUMBER[number] : KNOWN.get(number);
    }

    /** The registered option for {@code number}, or an unregistered opaque one. */
    public static OptionNumber valueOf(int number) {
        OptionNumber n = known(number);
        if (n != null) {
            return n;
        }
        if (number < 0 || number > MAX_NUMBER) {
            throw new IllegalArgumentException("option number must be 0..65535, got " + number);
        }
        return new OptionNumber(number, "Option" + number, Format.OPAQUE, 0, UNKNOWN_MAX_LENGTH, false, false);
    }

    /** Every option number with a definition here, by number. */
    public static Map<Integer, OptionNumber> known() {
        return Collections.unmodifiableMap(KNOWN);
    }

    public int number() {
        return number;
    }

    /** The registry name, e.g. {@code "Uri-Path"}; {@code "Option<n>"} for unknown numbers. */
    public String name() {
        return name;
    }

    public Format format() {
        return format;
    }

    /** Smallest value length in bytes the definition allows. */
    public int minLength() {
        return minLength;
    }

    /** Largest value length in bytes the definition allows. */
    public int maxLength() {
        return maxLength;
    }

    /** Whether the option may occur more than once (RFC 7252 §5.4.5). */
    public boolean isRepeatable() {
        return repeatable;
    }

    /** Whether this number has a definition in this registry (see the class comment). */
    public boolean isKnown() {
        return known;
    }

    /** Critical: odd number (RFC 7252 §5.4.6). */
    public boolean isCritical() {
        return isCritical(number);
    }

    /** Unsafe to forward by a proxy that does not understand it: bit 1 set (RFC 7252 §5.4.6). */
    public boolean isUnsafe() {
        return (number & 2) != 0;
    }

    /** Not part of the cache key: {@code (n & 0x1e) == 0x1c} (RFC 7252 §5.4.6). */
    public boolean isNoCacheKey() {
        return (number & 0x1E) == 0x1C;
    }

    /** Critical test on a bare number (RFC 7252 §5.4.6). */
    public static boolean isCritical(int number) {
        return (number & 1) != 0;
    }

    /** Whether a value of {@code length} bytes is within this option's defined length. */
    public boolean acceptsLength(int length) {
        return length >= minLength && length <= maxLength;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OptionNumber && ((OptionNumber) o).number == number;
    }

    @Override
    public int hashCode() {
        return number;
    }

    @Override
    public String toString() {
        return name;
    }
}
