package io.stagecoach.core.coap;

import io.stagecoach.elements.SafeText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One option instance (RFC 7252 §5.4): a number and an immutable value, with typed views.
 *
 * <p>An {@code Option} is not validated against its definition on creation; {@link
 * OptionSet.Builder} validates when the option is added, and {@link #isValid()} tells whether a
 * received value has the defined length (RFC 7252 §5.4.3).
 */
public final class Option {

    private final int number;
    private final byte[] value;

    private Option(int number, byte[] value) {
        if (number < 0 || number > OptionNumber.MAX_NUMBER) {
            throw new IllegalArgumentException("option number must be 0..65535, got " + number);
        }
        this.number = number;
        this.value = value;
    }

    /** An option holding a copy of {@code value}. */
    public static Option of(OptionNumber number, byte[] value) {
        return new Option(number.number(), value.clone());
    }

    /** An option holding a copy of {@code value}. */
    public static Option of(int number, byte[] value) {
        return new Option(number, value.clone());
    }

    /** A string option, UTF-8 encoded. */
    public static Option ofString(OptionNumber number, String value) {
        return new Option(number.number(), value.getBytes(StandardCharsets.UTF_8));
    }

    /** A uint option in its shortest encoding (0 is zero bytes, RFC 7252 §3.2). */
    public static Option ofUint(OptionNumber number, long value) {
        return new Option(number.number(), Bytes.uint(value));
    }

    /** Wraps without copying; for {@link OptionSet}, which never leaks the array. */
    static Option wrap(int number, byte[] value) {
        return new Option(number, value);
    }

    public int number() {
        return number;
    }

    /** The registry entry for the number (an unregistered one if unknown). */
    public OptionNumber optionNumber() {
        return OptionNumber.valueOf(number);
    }

    public int length() {
        return value.length;
    }

    /** A copy of the value bytes. */
    public byte[] value() {
        return value.clone();
    }

    /** The value decoded as UTF-8. */
    public String asString() {
        return new String(value, StandardCharsets.UTF_8);
    }

    /** The value as an unsigned integer; {@code IllegalStateException} if longer than 8 bytes. */
    public long asUint() {
        if (value.length > 8) {
            throw new IllegalStateException(optionNumber() + " value of " + value.length
                    + " bytes is too long for a uint");
        }
        return Bytes.uint(value, 0, value.length);
    }

    /** The value in lower-case hex. */
    public String hex() {
        return Bytes.hex(value, 0, value.length);
    }

    /**
     * Whether the value has the length its definition allows (always true for unknown numbers)
     * and, for Block1/Block2, does not use the reserved SZX 7.
     */
    public boolean isValid() {
        return OptionSet.isValidValue(number, value, 0, value.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Option && ((Option) o).number == number
                && Arrays.equals(((Option) o).value, value);
    }

    @Override
    public int hashCode() {
        return number * 31 + Arrays.hashCode(value);
    }

    /**
     * E.g. {@code Uri-Path="sensors"}, {@code Content-Format=50}, {@code ETag=0xdeadbeef}. A string
     * value is the peer's text: escaped to printable ASCII and cut at 200 characters
     * ({@link SafeText#forLog}), so that a log line quoting it cannot be split or recoloured.
     */
    @Override
    public String toString() {
        OptionNumber n = optionNumber();
        switch (n.format()) {
            case STRING:
                return n + "=\"" + SafeText.forLog(asString(), 200) + "\"";
            case UINT:
                return value.length <= 8 ? n + "=" + asUint() : n + "=0x" + hex();
            case EMPTY:
                return value.length == 0 ? n.toString() : n + "=0x" + hex();
            default:
                return n + "=0x" + hex();
        }
    }
}
