package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.testutil.TestVectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The seed files Jazzer replays in {@code mvn verify} are what the shared vectors and
 * {@link EndpointFuzzSeeds} say. Seeds are named {@code valid-*}, {@code malformed-*},
 * {@code ignored-*} and {@code conv-*}; other files in the directories are crash inputs Jazzer
 * found and are kept as they are. {@code -Dstagecoach.updateSeeds=true} rewrites the seeds.
 */
class SeedCorpusTest {

    private static final Path INPUTS = Path.of("src/test/resources/io/stagecoach/core/fuzz");

    @Test
    void parserSeedsAreTheSharedVectors() {
        Map<String, byte[]> expected = new TreeMap<>();
        for (String section : new String[] {"valid", "malformed", "ignored"}) {
            for (Map<String, Object> v : TestVectors.section(section)) {
                expected.put(section + "-" + v.get("name"), TestVectors.hex((String) v.get("hex")));
            }
        }
        check(INPUTS.resolve("UdpMessageParserFuzzTestInputs/parse"), expected);
    }

    @Test
    void endpointSeedsAreTheVectorsAndConversations() {
        check(INPUTS.resolve("EndpointFuzzTestInputs/datagrams"), EndpointFuzzSeeds.all());
    }

    private static void check(Path dir, Map<String, byte[]> expected) {
        try {
            if (Boolean.getBoolean("stagecoach.updateSeeds")) {
                Files.createDirectories(dir);
                for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                    Files.write(dir.resolve(e.getKey()), e.getValue());
                }
            }
            Map<String, String> onDisk = new TreeMap<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String name = f.getFileName().toString();
                    if (name.matches("(valid|malformed|ignored|conv)-.*")) {
                        onDisk.put(name, TestVectors.hex(Files.readAllBytes(f)));
                    }
                }
            }
            Map<String, String> want = new TreeMap<>();
            expected.forEach((k, v) -> want.put(k, TestVectors.hex(v)));
            assertEquals(want, onDisk, "seed corpus in " + dir + " is stale: run with -Dstagecoach.updateSeeds=true");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
