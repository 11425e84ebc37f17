package io.stagecoach.core.link;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One link of a CoRE link-format document (RFC 6690 §2): a target URI and its attributes, as
 * produced by {@link LinkFormat#parse(String)} and consumed by {@link LinkFormat#serialize}.
 * Immutable. Attribute values are kept as lists: a flag attribute such as {@code obs} has no
 * value, the space-separated attributes {@code rt}, {@code if} and {@code ct} have one entry per
 * value, every other attribute one entry holding the whole (unquoted) value.
 */
public final class WebLink {

    private final String target;
    private final Map<String, List<String>> attributes;

    /**
     * @param target the URI between {@code <} and {@code >}, e.g. {@code /sensors/temp}
     * @param attributes name to values, in the order they are written
     */
    public WebLink(String target, Map<String, List<String>> attributes) {
        this.target = Objects.requireNonNull(target, "target");
        Map<String, List<String>> copy = new LinkedHashMap<>();
        attributes.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.attributes = Collections.unmodifiableMap(copy);
    }

    public String target() {
        return target;
    }

    /** All attributes, name to values, in document order. */
    public Map<String, List<String>> attributes() {
        return attributes;
    }

    public boolean has(String name) {
        return attributes.containsKey(name);
    }

    /** The values of {@code name}; empty for a flag or an absent attribute. */
    public List<String> values(String name) {
        return attributes.getOrDefault(name, List.of());
    }

    /** The first value of {@code name}, or {@code null}. */
    public String value(String name) {
        List<String> v = attributes.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WebLink w && w.target.equals(target) && w.attributes.equals(attributes);
    }

    @Override
    public int hashCode() {
        return target.hashCode() * 31 + attributes.hashCode();
    }

    @Override
    public String toString() {
        return LinkFormat.serialize(List.of(this));
    }
}
