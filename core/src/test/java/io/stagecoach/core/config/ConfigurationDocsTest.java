package io.stagecoach.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.stagecoach.elements.config.Definition;
import io.stagecoach.elements.config.ModuleDefinitions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/configuration.md in step with the definitions. Run with
 * {@code -Dstagecoach.updateDocs=true} to rewrite the file instead of failing.
 */
class ConfigurationDocsTest {

    /** Relative to the core module directory, where Maven runs the tests. */
    private static final Path DOCS = Path.of("..", "docs", "configuration.md");

    @Test
    void checkedInDocsMatchTheDefinitions() throws IOException {
        String expected = ConfigDocsMain.render();
        if (Boolean.getBoolean("stagecoach.updateDocs")) {
            Files.createDirectories(DOCS.getParent());
            Files.writeString(DOCS, expected, StandardCharsets.UTF_8);
        }
        String actual = Files.exists(DOCS) ? Files.readString(DOCS, StandardCharsets.UTF_8) : "";
        if (!expected.equals(actual)) {
            fail(DOCS.toAbsolutePath().normalize() + " is stale (or missing): it differs from what the"
                    + " definitions generate. Regenerate it with\n"
                    + "    mvn -B -o verify -pl core -am -Dstagecoach.updateDocs=true\n"
                    + "and commit it.");
        }
    }

    @Test
    void renderingIsDeterministic() {
        assertEquals(ConfigDocsMain.render(), ConfigDocsMain.render());
    }

    @Test
    void everyDefinitionHasARowInItsGroupsTable() {
        String md = ConfigDocsMain.render();
        for (ModuleDefinitions group : CoapConfig.ALL.groups()) {
            int section = md.indexOf("\n## " + group.name() + "\n");
            assertTrue(section >= 0, "no section for " + group.name());
            for (Definition<?> d : group.definitions()) {
                assertTrue(md.indexOf("| `" + d.name() + "` |", section) > section, "no row for " + d.name());
            }
        }
        // Machine-dependent defaults are described, not printed, so the file is the same everywhere.
        assertTrue(md.contains("| `coap.protocol-threads` | integer | number of available processors; 0 (inline) when"
                + " only one is available | 0 .. 1024 |"), md);
        assertTrue(md.contains("| `coap.dedup.max-entries` | integer | half the maximum heap at 72 bytes per entry"), md);
        assertTrue(md.contains("| `coap.ack-timeout` | duration (bare number: ms) | 2s | 1ms .. 300s |"), md);
    }
}
