package io.stagecoach.elements.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A typed configuration key: its name, type, default, unit, documentation and the rule a value
 * must meet. Definitions are immutable constants, compared by identity, and read with
 * {@link Configuration#get(Definition)}.
 *
 * <pre>{@code
 * public static final Definition<Duration> ACK_TIMEOUT = Definition.duration("coap.ack-timeout", ChronoUnit.MILLIS)
 *         .defaultValue(Duration.ofSeconds(2)).range(Duration.ofMillis(1), Duration.ofMinutes(10))
 *         .doc("Initial retransmission timeout (RFC 7252 §4.8).").build();
 * }</pre>
 *
 * <p>Names are lower-case, dot-separated words of letters, digits and hyphens, with at least one
 * dot: {@code module.setting}.
 */
public final class Definition<T> {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+");

    private final String name;
    private final Class<T> type;
    private final ValueKind<T> kind;
    private final Comparator<? super T> order;
    private final T defaultValue;
    private final String defaultDescription;
    private final String unit;
    private final boolean unitIsBare;
    private final String documentation;
    private final T min;
    private final T max;
    private final List<Check<T>> checks;

    private Definition(Builder<T> b) {
        this.name = b.name;
        this.type = b.type;
        this.kind = b.kind;
        this.order = b.order;
        this.defaultValue = b.defaultValue;
        this.defaultDescription = b.defaultDescription;
        this.unit = b.unit;
        this.unitIsBare = b.unitIsBare;
        this.documentation = b.documentation;
        this.min = b.min;
        this.max = b.max;
        this.checks = List.copyOf(b.checks);
    }

    /** A 32-bit integer. */
    public static Builder<Integer> integer(String name) {
        return new Builder<>(name, Integer.class, ValueKinds.INTEGER, Comparator.naturalOrder());
    }

    /** A 64-bit integer. */
    public static Builder<Long> longInteger(String name) {
        return new Builder<>(name, Long.class, ValueKinds.LONG, Comparator.naturalOrder());
    }

    /** A finite decimal number; NaN and infinities are rejected. */
    public static Builder<Double> decimal(String name) {
        return new Builder<>(name, Double.class, ValueKinds.DOUBLE, Comparator.naturalOrder());
    }

    /** {@code true} or {@code false} (case-insensitive); any other word is rejected. */
    public static Builder<Boolean> bool(String name) {
        return new Builder<>(name, Boolean.class, ValueKinds.BOOLEAN, null);
    }

    /** Any text, taken as is after trimming. */
    public static Builder<String> string(String name) {
        return new Builder<>(name, String.class, ValueKinds.STRING, null);
    }

    /** Constant names of {@code type}, matched case-insensitively. */
    public static <E extends Enum<E>> Builder<E> enumeration(String name, Class<E> type) {
        return new Builder<>(name, type, ValueKinds.enumeration(type), null);
    }

    /**
     * A non-negative duration written as {@code 500ms}, {@code 2s}, {@code 1m}, {@code 24h}; a bare
     * number such as {@code 2000} is in {@code bareUnit}.
     */
    public static Builder<Duration> duration(String name, ChronoUnit bareUnit) {
        Builder<Duration> b = new Builder<>(name, Duration.class, ValueKinds.duration(bareUnit),
                Comparator.naturalOrder());
        b.unit = ValueKinds.symbol(bareUnit);
        b.unitIsBare = true;
        return b.min(Duration.ZERO);
    }

    /**
     * A non-negative byte count below 2 GiB written as {@code 1024}, {@code 64KiB} or {@code 4MiB}.
     * It is an {@code int} because the socket and buffer APIs that consume sizes take ints.
     */
    public static Builder<Integer> size(String name) {
        Builder<Integer> b = new Builder<>(name, Integer.class, ValueKinds.SIZE, Comparator.naturalOrder());
        b.unit = "bytes";
        b.unitIsBare = true;
        return b.min(0);
    }

    /** The dotted key, for example {@code coap.ack-timeout}. */
    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** The value a {@link Configuration} returns when nothing was set for this key. */
    public T defaultValue() {
        return defaultValue;
    }

    /** The unit of numbers ({@code ms}, {@code bytes}, {@code datagrams}); empty if none. */
    public String unit() {
        return unit;
    }

    /** One or two sentences for users, citing the RFC section where one applies. */
    public String documentation() {
        return documentation;
    }

    public Optional<T> min() {
        return Optional.ofNullable(min);
    }

    public Optional<T> max() {
        return Optional.ofNullable(max);
    }

    /**
     * Parses {@code text} (trimmed) and validates the result.
     *
     * @param origin where the text came from, for the error message; {@code null} if unknown
     * @throws ConfigurationException naming this key, the text and what was expected
     */
    public T parse(String text, String origin) {
        String trimmed = text == null ? "" : text.trim();
        if (trimmed.isEmpty() && kind != ValueKinds.STRING) {
            throw new ConfigurationException(name, text, kind.expected() + ", not an empty text", origin);
        }
        T value;
        try {
            value = kind.parse(trimmed);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(name, text, e.getMessage(), origin);
        }
        return validate(value, text, origin);
    }

    /**
     * Checks {@code value} against this definition's type, range and checks.
     *
     * @throws ConfigurationException naming this key, the value and the violated bound
     */
    public T validate(Object value) {
        return validate(value, null, null);
    }

    private T validate(Object value, String text, String origin) {
        if (value == null) {
            throw new ConfigurationException(name, null, "a value; null is not allowed", origin);
        }
        if (!type.isInstance(value)) {
            throw new ConfigurationException(name, String.valueOf(value), "a " + type.getSimpleName(), origin);
        }
        T typed = type.cast(value);
        String shown = text != null ? text : kind.format(typed);
        boolean tooLow = min != null && order.compare(typed, min) < 0;
        boolean tooHigh = max != null && order.compare(typed, max) > 0;
        if (tooLow || tooHigh) {
            throw new ConfigurationException(name, shown, boundText(tooLow), origin);
        }
        for (Check<T> check : checks) {
            if (!check.test.test(typed)) {
                throw new ConfigurationException(name, shown, check.expected, origin);
            }
        }
        return typed;
    }

    private String boundText(boolean tooLow) {
        String bound = tooLow ? "at least " + format(min) : "at most " + format(max);
        return min != null && max != null ? bound + " (allowed " + format(min) + " .. " + format(max) + ")" : bound;
    }

    /** {@code value} as text that {@link #parse} accepts, for example {@code 2s} or {@code 4MiB}. */
    public String format(T value) {
        return kind.format(value);
    }

    /** The type for documentation, for example {@code duration} or {@code enum}. */
    public String typeName() {
        return kind.typeName();
    }

    /** The default for documentation, with its unit: {@code 2s}, {@code 10000 datagrams}. */
    public String defaultText() {
        if (defaultDescription != null) {
            return defaultDescription;
        }
        return withUnit(format(defaultValue));
    }

    /** The accepted values for documentation, for example {@code 0 .. 8} or {@code A, B}. */
    public String rangeText() {
        List<String> parts = new ArrayList<>();
        if (kind == ValueKinds.BOOLEAN) {
            parts.add("true, false");
        } else if (type.isEnum()) {
            parts.add(Arrays.stream(type.getEnumConstants()).map(c -> ((Enum<?>) c).name())
                    .collect(Collectors.joining(", ")));
        } else if (min != null && max != null) {
            parts.add(withUnit(format(min) + " .. " + format(max)));
        } else if (min != null) {
            parts.add(withUnit("≥ " + format(min)));
        } else if (max != null) {
            parts.add(withUnit("≤ " + format(max)));
        }
        for (Check<T> check : checks) {
            parts.add(check.expected);
        }
        return parts.isEmpty() ? "any" : String.join("; ", parts);
    }

    private String withUnit(String text) {
        return unit.isEmpty() || unitIsBare ? text : text + " " + unit;
    }

    /** Documentation of the type, for example {@code duration (bare number: ms)}. */
    public String typeText() {
        return unitIsBare ? kind.typeName() + " (bare number: " + unit + ")" : kind.typeName();
    }

    @Override
    public String toString() {
        return name;
    }

    private record Check<T>(Predicate<? super T> test, String expected) {
    }

    /** Collects the parts of a {@link Definition}; {@link #build()} validates them. */
    public static final class Builder<T> {
        private final String name;
        private final Class<T> type;
        private final ValueKind<T> kind;
        private final Comparator<? super T> order;
        private T defaultValue;
        private String defaultDescription;
        private String unit = "";
        private boolean unitIsBare;
        private String documentation;
        private T min;
        private T max;
        private final List<Check<T>> checks = new ArrayList<>();

        private Builder(String name, Class<T> type, ValueKind<T> kind, Comparator<? super T> order) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("definition name must be dotted lower-case words"
                        + " such as coap.ack-timeout, was '" + name + "'");
            }
            this.name = name;
            this.type = type;
            this.kind = kind;
            this.order = order;
        }

        public Builder<T> defaultValue(T value) {
            this.defaultValue = Objects.requireNonNull(value, "default value of " + name);
            return this;
        }

        /**
         * A default computed where the code runs (for example from the processor count), shown
         * in documentation as {@code description} so that generated docs do not depend on the
         * machine that generated them.
         */
        public Builder<T> defaultValue(T value, String description) {
            this.defaultDescription = Objects.requireNonNull(description, "description");
            return defaultValue(value);
        }

        /** A label for numbers, for example {@code datagrams}; not for durations and sizes. */
        public Builder<T> unit(String label) {
            if (unitIsBare) {
                throw new IllegalStateException(name + ": durations and sizes carry their own unit");
            }
            this.unit = Objects.requireNonNull(label, "unit");
            return this;
        }

        public Builder<T> doc(String sentence) {
            this.documentation = Objects.requireNonNull(sentence, "documentation");
            return this;
        }

        public Builder<T> min(T value) {
            requireOrdered();
            this.min = Objects.requireNonNull(value, "min");
            return this;
        }

        public Builder<T> max(T value) {
            requireOrdered();
            this.max = Objects.requireNonNull(value, "max");
            return this;
        }

        /** Inclusive bounds. */
        public Builder<T> range(T min, T max) {
            return min(min).max(max);
        }

        /** An extra rule; {@code expected} says what passes, for example "a power of two". */
        public Builder<T> check(Predicate<? super T> test, String expected) {
            checks.add(new Check<>(Objects.requireNonNull(test, "test"), Objects.requireNonNull(expected, "expected")));
            return this;
        }

        private void requireOrdered() {
            if (order == null) {
                throw new IllegalStateException(name + ": a " + kind.typeName() + " has no range");
            }
        }

        /**
         * @throws IllegalStateException if the default or the documentation is missing, the
         *     range is empty, or the default breaks the rules
         */
        public Definition<T> build() {
            if (defaultValue == null) {
                throw new IllegalStateException(name + ": no default value");
            }
            if (documentation == null || documentation.isBlank()) {
                throw new IllegalStateException(name + ": no documentation");
            }
            if (min != null && max != null && order.compare(min, max) > 0) {
                throw new IllegalStateException(name + ": min is above max");
            }
            Definition<T> definition = new Definition<>(this);
            try {
                definition.validate(defaultValue);
            } catch (ConfigurationException e) {
                throw new IllegalStateException(name + ": the default breaks the rules: " + e.getMessage(), e);
            }
            return definition;
        }
    }
}
