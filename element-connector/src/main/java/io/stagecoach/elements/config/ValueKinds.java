package io.stagecoach.elements.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The built-in {@link ValueKind}s. */
final class ValueKinds {

    private ValueKinds() {
    }

    static final ValueKind<Integer> INTEGER = new ValueKind<>() {
        @Override public String typeName() { return "integer"; }
        @Override public Integer parse(String text) {
            try {
                return Integer.valueOf(stripUnderscores(text));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(expected());
            }
        }
        @Override public String format(Integer value) { return grouped(value); }
        @Override public String expected() { return "an integer"; }
    };

    static final ValueKind<Long> LONG = new ValueKind<>() {
        @Override public String typeName() { return "long"; }
        @Override public Long parse(String text) {
            try {
                return Long.valueOf(stripUnderscores(text));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(expected());
            }
        }
        @Override public String format(Long value) { return grouped(value); }
        @Override public String expected() { return "a 64-bit integer"; }
    };

    static final ValueKind<Double> DOUBLE = new ValueKind<>() {
        @Override public String typeName() { return "decimal"; }
        @Override public Double parse(String text) {
            double value;
            try {
                value = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(expected());
            }
            // parseDouble also accepts "NaN", "Infinity" and a trailing 'd'; none is a setting.
            if (!Double.isFinite(value) || !text.matches("[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?")) {
                throw new IllegalArgumentException(expected());
            }
            return value;
        }
        @Override public String format(Double value) {
            // Plain notation: 1000000000 rather than 1.0E9, 1 rather than 1.0.
            return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
        }
        @Override public String expected() { return "a decimal number such as 1.5"; }
    };

    static final ValueKind<Boolean> BOOLEAN = new ValueKind<>() {
        @Override public String typeName() { return "boolean"; }
        @Override public Boolean parse(String text) {
            // Boolean.parseBoolean maps every typo to false; accept only the two words.
            if (text.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (text.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            throw new IllegalArgumentException(expected());
        }
        @Override public String format(Boolean value) { return value.toString(); }
        @Override public String expected() { return "true or false"; }
    };

    static final ValueKind<String> STRING = new ValueKind<>() {
        @Override public String typeName() { return "string"; }
        @Override public String parse(String text) { return text; }
        @Override public String format(String value) { return value; }
        @Override public String expected() { return "a text"; }
    };

    /** Byte counts with optional binary suffix: {@code 1024}, {@code 64KiB}, {@code 4MiB}. */
    static final ValueKind<Integer> SIZE = new ValueKind<>() {
        private final Pattern syntax = Pattern.compile("([0-9][0-9_]*)\\s*([A-Za-z]*)");
        private final Map<String, Long> factors = Map.of(
                "", 1L, "b", 1L, "kib", 1024L, "mib", 1024L * 1024, "gib", 1024L * 1024 * 1024);

        @Override public String typeName() { return "size"; }
        @Override public Integer parse(String text) {
            Matcher m = syntax.matcher(text);
            Long factor = m.matches() ? factors.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
            if (factor == null) {
                throw new IllegalArgumentException(expected());
            }
            try {
                long bytes = Math.multiplyExact(Long.parseLong(stripUnderscores(m.group(1))), factor);
                return Math.toIntExact(bytes);
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("a size below 2GiB");
            }
        }
        @Override public String format(Integer value) {
            int v = value;
            if (v != 0 && v % (1024 * 1024 * 1024) == 0) {
                return v / (1024 * 1024 * 1024) + "GiB";
            }
            if (v != 0 && v % (1024 * 1024) == 0) {
                return v / (1024 * 1024) + "MiB";
            }
            if (v != 0 && v % 1024 == 0 && v >= 64 * 1024) {
                return v / 1024 + "KiB";
            }
            // Small sizes read better in bytes: 2048 rather than 2KiB next to RFC byte limits.
            return grouped(v);
        }
        @Override public String expected() {
            return "a size in bytes with optional suffix B, KiB, MiB or GiB, such as 1024 or 4MiB";
        }
    };

    /** Durations {@code 500ms}, {@code 2s}, {@code 1m}; a bare number is in {@code defaultUnit}. */
    static ValueKind<Duration> duration(ChronoUnit defaultUnit) {
        return new DurationKind(defaultUnit);
    }

    static <E extends Enum<E>> ValueKind<E> enumeration(Class<E> type) {
        return new EnumKind<>(type);
    }

    /** The symbol used in duration text for {@code unit}; only the units below are supported. */
    static String symbol(ChronoUnit unit) {
        switch (unit) {
            case NANOS: return "ns";
            case MICROS: return "us";
            case MILLIS: return "ms";
            case SECONDS: return "s";
            case MINUTES: return "m";
            case HOURS: return "h";
            case DAYS: return "d";
            default: throw new IllegalArgumentException("unsupported duration unit " + unit);
        }
    }

    /** 10_000 and above with '_' between groups of three digits, as Java literals allow. */
    private static String grouped(long value) {
        String digits = Long.toString(Math.abs(value));
        if (Math.abs(value) < 10_000) {
            return Long.toString(value);
        }
        StringBuilder out = new StringBuilder(value < 0 ? "-" : "");
        int head = digits.length() % 3 == 0 ? 3 : digits.length() % 3;
        out.append(digits, 0, head);
        for (int i = head; i < digits.length(); i += 3) {
            out.append('_').append(digits, i, i + 3);
        }
        return out.toString();
    }

    private static String stripUnderscores(String text) {
        // Allows 10_000 in files, as in Java literals; a leading or trailing '_' stays invalid.
        return text.matches("[-+]?[0-9]+(_+[0-9]+)*") ? text.replace("_", "") : text;
    }

    private static final class DurationKind implements ValueKind<Duration> {
        private static final Pattern SYNTAX = Pattern.compile("([0-9][0-9_]*)\\s*([a-z]*)");
        private static final ChronoUnit[] UNITS = {ChronoUnit.DAYS, ChronoUnit.HOURS,
            ChronoUnit.MINUTES, ChronoUnit.SECONDS, ChronoUnit.MILLIS, ChronoUnit.MICROS, ChronoUnit.NANOS};
        private final ChronoUnit defaultUnit;

        DurationKind(ChronoUnit defaultUnit) {
            symbol(defaultUnit); // rejects unsupported units early
            this.defaultUnit = defaultUnit;
        }

        @Override public String typeName() { return "duration"; }

        @Override public Duration parse(String text) {
            Matcher m = SYNTAX.matcher(text.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new IllegalArgumentException(expected());
            }
            ChronoUnit unit = m.group(2).isEmpty() ? defaultUnit : unitOf(m.group(2));
            try {
                return unit.getDuration().multipliedBy(Long.parseLong(stripUnderscores(m.group(1))));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("a duration that fits in 64 bits");
            }
        }

        private ChronoUnit unitOf(String symbol) {
            if (symbol.equals("min")) {
                return ChronoUnit.MINUTES;
            }
            for (ChronoUnit u : UNITS) {
                if (symbol(u).equals(symbol)) {
                    return u;
                }
            }
            throw new IllegalArgumentException(expected());
        }

        @Override public String format(Duration value) {
            if (value.isZero()) {
                return "0" + symbol(defaultUnit);
            }
            long nanos;
            try {
                nanos = value.toNanos();
            } catch (ArithmeticException e) {
                return value.toString(); // beyond 292 years; only seen in error messages
            }
            // The largest unit that represents the value exactly: 24h, not 86400000ms. Days and
            // minutes are left out: RFCs state periods in hours and seconds (24 hours, 247 s), and
            // "5m" could be misread as months or metres.
            for (ChronoUnit u : UNITS) {
                if (u == ChronoUnit.DAYS || u == ChronoUnit.MINUTES) {
                    continue;
                }
                long unitNanos = u.getDuration().toNanos();
                if (nanos % unitNanos == 0) {
                    return nanos / unitNanos + symbol(u);
                }
            }
            throw new AssertionError("nanoseconds divide every duration");
        }

        @Override public String expected() {
            return "a whole number with unit d, h, m, s, ms, us or ns (bare number = "
                    + symbol(defaultUnit) + "), such as 2s or 500ms";
        }
    }

    private static final class EnumKind<E extends Enum<E>> implements ValueKind<E> {
        private final Class<E> type;

        EnumKind(Class<E> type) {
            this.type = type;
        }

        @Override public String typeName() { return "enum"; }

        @Override public E parse(String text) {
            for (E constant : type.getEnumConstants()) {
                if (constant.name().equalsIgnoreCase(text)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException(expected());
        }

        @Override public String format(E value) { return value.name(); }

        @Override public String expected() {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(Enum::name)
                    .collect(Collectors.joining(", ")) + " (case-insensitive)";
        }
    }
}
