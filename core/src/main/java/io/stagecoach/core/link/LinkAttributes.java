package io.stagecoach.core.link;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The link attributes a resource advertises in {@code /.well-known/core} (RFC 6690 §3, RFC 7252
 * §7.2): {@code rt}, {@code if}, {@code ct}, {@code sz}, {@code obs}, {@code title},
 * {@code anchor} and any other name. Thread-safe: writers copy the map, readers see a snapshot,
 * so a resource may change its attributes (e.g. {@code ct} of an observable) while discovery runs.
 */
public final class LinkAttributes {

    /** No attributes. */
    public LinkAttributes() {
    }

    public static final String RESOURCE_TYPE = "rt";
    public static final String INTERFACE = "if";
    public static final String CONTENT_TYPE = "ct";
    public static final String MAX_SIZE = "sz";
    public static final String OBSERVABLE = "obs";
    public static final String TITLE = "title";
    public static final String ANCHOR = "anchor";

    private volatile Map<String, List<String>> map = Map.of();

    /** Replaces the values of {@code name}; no values makes it a flag (e.g. {@code obs}). */
    public LinkAttributes set(String name, String... values) {
        return set(name, List.of(values));
    }

    /** Replaces the values of {@code name}; an empty list makes it a flag. */
    public synchronized LinkAttributes set(String name, List<String> values) {
        checkName(name);
        for (String v : values) {
            Objects.requireNonNull(v, "value");
        }
        Map<String, List<String>> copy = new LinkedHashMap<>(map);
        copy.put(name, List.copyOf(values));
        map = Collections.unmodifiableMap(copy);
        return this;
    }

    /** Appends one value to {@code name} (e.g. a second {@code rt}), keeping the others. */
    public synchronized LinkAttributes add(String name, String value) {
        Objects.requireNonNull(value, "value");
        List<String> values = new ArrayList<>(map.getOrDefault(name, List.of()));
        values.add(value);
        return set(name, values);
    }

    public synchronized LinkAttributes remove(String name) {
        if (map.containsKey(name)) {
            Map<String, List<String>> copy = new LinkedHashMap<>(map);
            copy.remove(name);
            map = Collections.unmodifiableMap(copy);
        }
        return this;
    }

    public boolean has(String name) {
        return map.containsKey(name);
    }

    /** The values of {@code name}; empty for a flag or an absent attribute. */
    public List<String> values(String name) {
        return map.getOrDefault(name, List.of());
    }

    /** The first value of {@code name}, or {@code null}. */
    public String value(String name) {
        List<String> v = map.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** An unmodifiable snapshot, in the order the attributes were first set. */
    public Map<String, List<String>> asMap() {
        return map;
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }

    private static void checkName(String name) {
        // RFC 6690 §2: parmname = 1*( ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" )
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("link attribute name must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && "!#$&+-.^_`|~".indexOf(c) < 0) {
                throw new IllegalArgumentException("link attribute name '" + name
                        + "' has a character not allowed by RFC 6690 §2: '" + c + "'");
            }
        }
    }

    @Override
    public String toString() {
        return map.toString();
    }
}
