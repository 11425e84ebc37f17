package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/user-guide.md honest: every {@code ```java} block must be preceded by
 * {@code <!-- snippet:NAME -->} and equal (whitespace-normalized) the region of the same name in
 * {@link UserGuideSnippetsTest}, which compiles and runs it; every region must appear in the guide.
 */
class UserGuideDriftTest {

    private static final Path GUIDE = Path.of("..", "docs", "user-guide.md");
    private static final Path SNIPPETS = Path.of("src", "test", "java", "io", "stagecoach", "examples",
            "UserGuideSnippetsTest.java");
    private static final Pattern REGION = Pattern.compile(
            "// snippet:([\\w-]+)\\R(.*?)\\R\\s*// end:\\1", Pattern.DOTALL);
    private static final Pattern BLOCK = Pattern.compile(
            "(?:<!-- snippet:([\\w-]+) -->\\s*\\R)?```java\\R(.*?)\\R```", Pattern.DOTALL);

    @Test
    void everyJavaBlockOfTheGuideIsACompiledSnippet() throws IOException {
        Map<String, String> regions = parse(REGION, Files.readString(SNIPPETS), "source");
        Map<String, String> blocks = parse(BLOCK, Files.readString(GUIDE), "guide");
        assertFalse(blocks.isEmpty(), "the guide has java blocks");
        for (Map.Entry<String, String> b : blocks.entrySet()) {
            String region = regions.get(b.getKey());
            assertTrue(region != null, "guide block '" + b.getKey() + "' has no // snippet:" + b.getKey()
                    + " region in " + SNIPPETS);
            assertEquals(normalize(region), normalize(b.getValue()),
                    "guide block '" + b.getKey() + "' drifted from its compiled snippet; copy the region into the guide");
        }
        for (String name : regions.keySet()) {
            assertTrue(blocks.containsKey(name), "snippet '" + name + "' is not shown in the guide");
        }
    }

    @Test
    void normalizationIgnoresIndentationOnly() {
        assertEquals(normalize("a(1);\n    b();"), normalize("  a(1);\nb();  "));
        assertFalse(normalize("a(1);").equals(normalize("a(2);")));
    }

    private static Map<String, String> parse(Pattern p, String text, String where) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            String name = m.group(1);
            if (name == null) {
                fail("a ```java block in the guide lacks its <!-- snippet:NAME --> marker: " + m.group(2).lines().findFirst().orElse(""));
            }
            if (out.put(name, m.group(2)) != null) {
                fail("snippet '" + name + "' appears twice in the " + where);
            }
        }
        return out;
    }

    static String normalize(String code) {
        return String.join(" ", List.of(code.strip().split("\\s+")));
    }
}
