package io.stagecoach.elements.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationTest {

    static final Definition<Duration> TIMEOUT = Definition.duration("demo.ack-timeout", ChronoUnit.MILLIS)
            .defaultValue(Duration.ofSeconds(2)).range(Duration.ofMillis(1), Duration.ofMinutes(5))
            .doc("Timeout.").build();
    static final Definition<Integer> TOKEN_LENGTH = Definition.integer("demo.token-length")
            .defaultValue(8).range(0, 8).doc("Token length.").build();
    static final Definition<Integer> BUFFER = Definition.size("other.receive-buffer")
            .defaultValue(4096).doc("Buffer.").build();

    static final ModuleDefinitions DEMO = ModuleDefinitions.of("Demo", "Demo keys.", TIMEOUT, TOKEN_LENGTH);
    static final ModuleDefinitions OTHER = ModuleDefinitions.of("Other", "Other keys.", BUFFER);

    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void getReturnsDefaultWhenNothingIsSet() {
        Configuration config = Configuration.defaults(DEMO);
        assertEquals(Duration.ofSeconds(2), config.get(TIMEOUT));
        assertFalse(config.isSet(TIMEOUT));
        // A definition of a group the configuration was not built with still reads its default.
        assertEquals(4096, config.get(BUFFER));
    }

    @Test
    void setValidatesAndNamesKeyAndBound() {
        Configuration.Builder builder = Configuration.builder(DEMO);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder.set(TOKEN_LENGTH, 9));
        assertTrue(e.getMessage().contains("demo.token-length") && e.getMessage().contains("at most 8"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> builder.set(TIMEOUT, Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> builder.set(TIMEOUT, null));
        assertEquals(3, builder.set(TOKEN_LENGTH, 3).build().get(TOKEN_LENGTH));
    }

    @Test
    void loadReadsPropertiesAndRejectsBadValuesNamingKeyValueAndOrigin() {
        Configuration config = Configuration.builder(DEMO)
                .load(props("demo.ack-timeout", "500ms", "demo.token-length", "4")).build();
        assertEquals(Duration.ofMillis(500), config.get(TIMEOUT));
        assertEquals(4, config.get(TOKEN_LENGTH));

        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(DEMO).load(props("demo.ack-timeout", "soon"), "file a.properties"));
        assertEquals("demo.ack-timeout", e.key());
        assertEquals("soon", e.value());
        assertTrue(e.getMessage().contains("(from file a.properties)"), e.getMessage());
    }

    @Test
    void unknownKeyInPropertiesFailsListingCloseMatches() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(DEMO, OTHER).load(props("demo.ack-timout", "3s"), "file x"));
        assertEquals("Unknown configuration key 'demo.ack-timout' (from file x); did you mean demo.ack-timeout?"
                + " (docs/configuration.md lists all keys)", e.getMessage());

        // Same last segment in another module counts as a close match too.
        ConfigurationException moved = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(DEMO, OTHER).load(props("udp.receive-buffer", "1MiB")));
        assertTrue(moved.getMessage().contains("did you mean other.receive-buffer?"), moved.getMessage());

        ConfigurationException far = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(DEMO).load(props("zzz.qqq", "1")));
        assertTrue(far.getMessage().contains("no similar key is known"), far.getMessage());
    }

    @Test
    void loadFileReadsPropertiesFormat(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("stagecoach.properties");
        Files.writeString(file, "# comment\ndemo.ack-timeout = 3s\ndemo.token-length=2\n", StandardCharsets.UTF_8);
        Configuration config = Configuration.builder(DEMO).loadFile(file).build();
        assertEquals(Duration.ofSeconds(3), config.get(TIMEOUT));
        assertEquals(2, config.get(TOKEN_LENGTH));

        Files.writeString(file, "demo.token-length=80\n", StandardCharsets.UTF_8);
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.builder(DEMO).loadFile(file));
        assertTrue(e.getMessage().contains("from file " + file) && e.getMessage().contains("\"80\""), e.getMessage());

        assertThrows(NoSuchFileException.class, () -> Configuration.builder(DEMO).loadFile(dir.resolve("missing")));
    }

    @Test
    void precedenceIsDefaultsThenFileThenSystemPropertyThenSetWhateverTheCallOrder() {
        Properties file = props("demo.ack-timeout", "3s", "demo.token-length", "4");
        Properties system = props("stagecoach.demo.ack-timeout", "5s", "java.version", "17");

        // Explicit set first, then the weaker sources: set still wins.
        Configuration config = Configuration.builder(DEMO)
                .set(TIMEOUT, Duration.ofSeconds(7))
                .applySystemProperties(system)
                .load(file)
                .build();
        assertEquals(Duration.ofSeconds(7), config.get(TIMEOUT), "set beats system property and file");
        assertEquals(4, config.get(TOKEN_LENGTH), "file beats default");

        Configuration noSet = Configuration.builder(DEMO).applySystemProperties(system).load(file).build();
        assertEquals(Duration.ofSeconds(5), noSet.get(TIMEOUT), "system property beats file");
    }

    @Test
    void realSystemPropertiesAreAppliedAndUnknownOnesIgnored() {
        String key = "stagecoach.demo.token-length";
        String unknown = "stagecoach.demo.no-such-key";
        System.setProperty(key, "6");
        System.setProperty(unknown, "x");
        try {
            Configuration config = Configuration.builder(DEMO).applySystemProperties().build();
            assertEquals(6, config.get(TOKEN_LENGTH));
        } finally {
            System.clearProperty(key);
            System.clearProperty(unknown);
        }
    }

    @Test
    void badSystemPropertyNamesThePropertyAsOrigin() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> Configuration.builder(DEMO)
                .applySystemProperties(props("stagecoach.demo.token-length", "nine")));
        assertTrue(e.getMessage().contains("system property stagecoach.demo.token-length"), e.getMessage());
    }

    @Test
    void builtConfigurationDoesNotChangeWhenTheBuilderDoes() {
        Configuration.Builder builder = Configuration.builder(DEMO).set(TOKEN_LENGTH, 2);
        Configuration first = builder.build();
        builder.set(TOKEN_LENGTH, 5);
        assertEquals(2, first.get(TOKEN_LENGTH));
        assertEquals(5, builder.build().get(TOKEN_LENGTH));
    }

    @Test
    void newBuilderCopiesValuesBelowLaterSources() {
        Configuration base = Configuration.builder(DEMO).set(TOKEN_LENGTH, 2).set(TIMEOUT, Duration.ofSeconds(9)).build();
        Configuration derived = base.newBuilder().load(props("demo.token-length", "3")).build();
        assertEquals(3, derived.get(TOKEN_LENGTH), "a file applied to the copy overrides the copied value");
        assertEquals(Duration.ofSeconds(9), derived.get(TIMEOUT), "values not overridden are kept");
        assertEquals(2, base.get(TOKEN_LENGTH), "the original is unchanged");
        assertNotSame(base, derived);
        assertSame(base.definitions(), derived.definitions());
    }

    @Test
    void clashingDefinitionWithARegisteredNameIsRejected() {
        Definition<Integer> impostor = Definition.integer("demo.token-length").defaultValue(1).doc("Other.").build();
        Configuration config = Configuration.defaults(DEMO);
        assertThrows(IllegalArgumentException.class, () -> config.get(impostor));
        assertThrows(IllegalArgumentException.class, () -> Configuration.builder(DEMO).set(impostor, 1));
        assertThrows(IllegalArgumentException.class,
                () -> Definitions.of(DEMO, ModuleDefinitions.of("Dup", "Dup.", impostor)));
    }

    @Test
    void toStringListsConfiguredValuesSortedByKey() {
        Configuration config = Configuration.builder(DEMO).set(TOKEN_LENGTH, 2).set(TIMEOUT, Duration.ofMillis(1500))
                .build();
        assertEquals("Configuration{demo.ack-timeout=1500ms, demo.token-length=2}", config.toString());
    }

    @Test
    void closeMatchesRankByEditDistance() {
        Definitions all = Definitions.of(DEMO, OTHER);
        assertEquals(List.of("demo.token-length"), all.closeMatches("demo.tokenlength"));
        assertEquals(3, Definitions.editDistance("kitten", "sitting"));
        assertEquals(0, Definitions.editDistance("", ""));
    }

    @Test
    void getIsSafeFromManyThreads() throws InterruptedException {
        Configuration config = Configuration.builder(DEMO).set(TOKEN_LENGTH, 3).build();
        int[] wrong = new int[1];
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    if (config.get(TOKEN_LENGTH) != 3) {
                        synchronized (wrong) {
                            wrong[0]++;
                        }
                    }
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
            assertFalse(thread.isAlive());
        }
        assertEquals(0, wrong[0]);
    }
}
