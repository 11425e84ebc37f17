package io.stagecoach.elements.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DefinitionParsingTest {

    enum Color { RED, DARK_BLUE }

    static final Definition<Integer> INT = Definition.integer("test.int").defaultValue(5).range(0, 8)
            .doc("An int.").build();
    static final Definition<Long> LONG = Definition.longInteger("test.long").defaultValue(1L)
            .doc("A long.").build();
    static final Definition<Double> DOUBLE = Definition.decimal("test.double").defaultValue(1.5)
            .range(1.0, 10.0).doc("A double.").build();
    static final Definition<Boolean> BOOL = Definition.bool("test.bool").defaultValue(false).doc("A flag.").build();
    static final Definition<String> STRING = Definition.string("test.string").defaultValue("x").doc("A text.").build();
    static final Definition<Color> ENUM = Definition.enumeration("test.enum", Color.class)
            .defaultValue(Color.RED).doc("A color.").build();
    static final Definition<Duration> DURATION = Definition.duration("test.duration", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(2)).max(Duration.ofDays(2)).doc("A duration.").build();
    static final Definition<Integer> SIZE = Definition.size("test.size").defaultValue(1024).doc("A size.").build();

    @ParameterizedTest
    @CsvSource({"2s, PT2S", "500ms, PT0.5S", "247s, PT4M7S", "1m, PT1M", "1min, PT1M", "2000, PT2S",
        "' 3 s ', PT3S", "24h, PT24H", "1d, PT24H", "0, PT0S", "10us, PT0.00001S", "7ns, PT0.000000007S",
        "1_000ms, PT1S", "2S, PT2S"})
    void durationAcceptsUnitsAndBareNumbersInTheDefaultUnit(String text, String iso) {
        assertEquals(Duration.parse(iso), DURATION.parse(text, null), "parsed '" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2x", "-1s", "1.5s", "s", "", "PT2S", "2 s s", "99999999999999999999ns"})
    void durationRejectsMalformedTextNamingTheKey(String text) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> DURATION.parse(text, "test"));
        assertEquals("test.duration", e.key());
        assertTrue(e.getMessage().contains("test.duration") && e.getMessage().contains("\"" + text + "\""),
                e.getMessage());
    }

    @Test
    void durationAboveMaximumNamesTheBound() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> DURATION.parse("3d", null));
        assertEquals("at most 48h (allowed 0ms .. 48h)", e.expected(), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"1024, 1024", "4MiB, 4194304", "64KiB, 65536", "64kib, 65536", "1GiB, 1073741824",
        "10B, 10", "0, 0", "10_000, 10000"})
    void sizeAcceptsBytesAndBinarySuffixes(String text, int bytes) {
        assertEquals(bytes, SIZE.parse(text, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"4MB", "-1", "1.5KiB", "2GiB", "KiB", "9999999999"})
    void sizeRejectsDecimalUnitsNegativesAndOverflow(String text) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> SIZE.parse(text, null));
        assertEquals("test.size", e.key(), e.getMessage());
    }

    @Test
    void integerParsesAndChecksItsRange() {
        assertEquals(8, INT.parse("8", null));
        assertEquals(0, INT.parse(" 0 ", null));
        ConfigurationException high = assertThrows(ConfigurationException.class, () -> INT.parse("9", null));
        assertTrue(high.getMessage().endsWith("expected at most 8 (allowed 0 .. 8)"), high.getMessage());
        assertThrows(ConfigurationException.class, () -> INT.parse("-1", null));
        ConfigurationException word = assertThrows(ConfigurationException.class, () -> INT.parse("four", null));
        assertEquals("an integer", word.expected());
        assertThrows(ConfigurationException.class, () -> INT.parse("2147483648", null));
    }

    @Test
    void longParsesBeyondIntRange() {
        assertEquals(5_000_000_000L, LONG.parse("5_000_000_000", null));
        assertThrows(ConfigurationException.class, () -> LONG.parse("5e9", null));
    }

    @Test
    void doubleRejectsNaNInfinityAndJavaSuffixes() {
        assertEquals(2.25, DOUBLE.parse("2.25", null));
        assertEquals(1.0, DOUBLE.parse("1", null));
        for (String bad : new String[] {"NaN", "Infinity", "1.5d", "0x1p3", "abc"}) {
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> DOUBLE.parse(bad, null),
                    "accepted " + bad);
            assertEquals("test.double", e.key());
        }
        ConfigurationException low = assertThrows(ConfigurationException.class, () -> DOUBLE.parse("0.5", null));
        assertTrue(low.getMessage().endsWith("expected at least 1 (allowed 1 .. 10)"), low.getMessage());
    }

    @Test
    void booleanAcceptsOnlyTrueAndFalse() {
        assertEquals(true, BOOL.parse("TRUE", null));
        assertEquals(false, BOOL.parse("false", null));
        // Boolean.parseBoolean would have read "yes" as false without complaint.
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> BOOL.parse("yes", null));
        assertEquals("true or false", e.expected());
    }

    @Test
    void enumMatchesNamesCaseInsensitivelyAndListsThemOnError() {
        assertEquals(Color.DARK_BLUE, ENUM.parse("dark_blue", null));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ENUM.parse("green", null));
        assertTrue(e.getMessage().contains("one of RED, DARK_BLUE"), e.getMessage());
    }

    @Test
    void stringKeepsTrimmedText() {
        assertEquals("a b", STRING.parse("  a b ", null));
    }

    @Test
    void formatRoundTripsThroughParse() {
        assertEquals("2s", DURATION.format(Duration.ofSeconds(2)));
        assertEquals("1500ms", DURATION.format(Duration.ofMillis(1500)));
        assertEquals("24h", DURATION.format(Duration.ofHours(24)));
        assertEquals("0ms", DURATION.format(Duration.ZERO));
        assertEquals("300s", DURATION.format(Duration.ofMinutes(5)), "minutes are shown as seconds");
        assertEquals("4MiB", SIZE.format(4 * 1024 * 1024));
        assertEquals("65_507", SIZE.format(65_507));
        assertEquals("9999", INT.format(9999));
        assertEquals("1_000_000", INT.format(1_000_000));
        assertEquals("-12_345", INT.format(-12_345));
        assertEquals("5_000_000_000", LONG.format(5_000_000_000L));
        assertEquals("1000000000", DOUBLE.format(1e9));
        assertEquals("1", DOUBLE.format(1.0));
        assertEquals("0.001", DOUBLE.format(0.001));
        Definition<Integer> free = Definition.integer("test.free").defaultValue(0).doc("Free.").build();
        assertEquals(-12_345, free.parse(free.format(-12_345), null));
        assertEquals("2048", SIZE.format(2048));
        for (Duration d : new Duration[] {Duration.ofMillis(1500), Duration.ofNanos(3), Duration.ofDays(1)}) {
            assertEquals(d, DURATION.parse(DURATION.format(d), null));
        }
    }

    @Test
    void customCheckRejectsValuesNamingTheRule() {
        Definition<Integer> block = Definition.size("test.block").defaultValue(512).range(16, 1024)
                .check(v -> Integer.bitCount(v) == 1, "a power of two").doc("A block.").build();
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> block.parse("500", null));
        assertEquals("a power of two", e.expected());
        assertEquals("16 .. 1024; a power of two", block.rangeText());
    }

    @Test
    void originAppearsInTheMessage() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> INT.parse("x", "file /etc/app.properties"));
        assertEquals("Invalid configuration value for 'test.int' (from file /etc/app.properties): \"x\";"
                + " expected an integer", e.getMessage());
    }

    @Test
    void builderRejectsBadDefinitions() {
        assertThrows(IllegalArgumentException.class, () -> Definition.integer("NoDots"));
        assertThrows(IllegalArgumentException.class, () -> Definition.integer("a.b c"));
        IllegalStateException outside = assertThrows(IllegalStateException.class,
                () -> Definition.integer("test.x").defaultValue(9).range(0, 8).doc("X.").build());
        assertTrue(outside.getMessage().contains("at most 8"), outside.getMessage());
        assertThrows(IllegalStateException.class, () -> Definition.integer("test.x").defaultValue(1).build());
        assertThrows(IllegalStateException.class, () -> Definition.integer("test.x").doc("X.").build());
        assertThrows(IllegalStateException.class, () -> Definition.bool("test.x").min(true));
        assertThrows(IllegalStateException.class, () -> Definition.size("test.x").unit("KiB"));
        assertThrows(IllegalStateException.class,
                () -> Definition.integer("test.x").defaultValue(1).range(5, 2).doc("X.").build());
    }

    @Test
    void validateRejectsNullAndWrongType() {
        ConfigurationException isNull = assertThrows(ConfigurationException.class, () -> INT.validate(null));
        assertTrue(isNull.getMessage().contains("null is not allowed"), isNull.getMessage());
        assertThrows(ConfigurationException.class, () -> INT.validate("5"));
    }
}
