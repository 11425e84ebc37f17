package io.stagecoach.elements.config;

import java.util.List;
import java.util.Objects;

/**
 * A configuration value was rejected: unparsable, out of range, or set for an unknown key.
 *
 * <p>The message names the key, the offending value, what was expected and, when known, where
 * the value came from (a file, a system property). It is an {@link IllegalArgumentException}
 * so that values set in code and values read from text fail the same way.
 */
public final class ConfigurationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String value;
    private final String expected;

    /**
     * @param origin where the value came from, for example {@code file app.properties};
     *     {@code null} for values set in code
     */
    public ConfigurationException(String key, String value, String expected, String origin) {
        this(key, value, expected, "Invalid configuration value for '" + key + "'" + where(origin) + ": "
                + (value == null ? "null" : "\"" + value + "\"") + "; expected " + expected, null);
    }

    // The unused Void parameter tells this overload (a ready message) from the public one.
    private ConfigurationException(String key, String value, String expected, String message, Void unused) {
        super(message);
        this.key = Objects.requireNonNull(key, "key");
        this.value = value;
        this.expected = Objects.requireNonNull(expected, "expected");
    }

    /**
     * A key that no registered {@link Definition} has, usually a typo.
     *
     * @param closeMatches known keys the author probably meant; may be empty
     */
    public static ConfigurationException unknownKey(String key, String value, List<String> closeMatches,
            String origin) {
        String hint = closeMatches.isEmpty() ? "no similar key is known"
                : "did you mean " + String.join(" or ", closeMatches) + "?";
        return new ConfigurationException(key, value, "a known key", "Unknown configuration key '" + key + "'"
                + where(origin) + "; " + hint + " (docs/configuration.md lists all keys)", null);
    }

    private static String where(String origin) {
        return origin == null ? "" : " (from " + origin + ")";
    }

    /** The configuration key, for example {@code coap.ack-timeout}. */
    public String key() {
        return key;
    }

    /** The rejected value as text, or {@code null} if null was set. */
    public String value() {
        return value;
    }

    /** What would have been accepted, for example {@code at most 8}. */
    public String expected() {
        return expected;
    }
}
