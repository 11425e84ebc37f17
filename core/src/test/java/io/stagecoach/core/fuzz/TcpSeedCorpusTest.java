package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.testutil.ReliableTestVectors;
import io.stagecoach.core.testutil.TestVectors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The seeds {@link TcpMessageParserFuzzTest} replays are the shared RFC 8323 vectors of up to
 * 1 KiB ({@code vector-tcp-*}, {@code vector-ws-*}) and all small TCP vectors back to back as one
 * stream ({@code stream-tcp-vectors}); other files in the directory are crash inputs Jazzer
 * found and are kept as they are. {@code -Dstagecoach.updateSeeds=true} rewrites the seeds, as
 * for {@link SeedCorpusTest}.
 */
class TcpSeedCorpusTest {

    private static final Path DIR = Path.of("src/test/resources/io/stagecoach/core/fuzz/TcpMessageParserFuzzTestInputs/parse");
    private static final int LARGEST_SEED = 1024;

    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (ReliableTestVectors.Vector v : ReliableTestVectors.all()) {
            if (v.wire.length <= LARGEST_SEED) {
                seeds.put("vector-" + v.framing + "-" + v.name, v.wire);
                if (v.framing.equals("tcp")) {
                    stream.writeBytes(v.wire);
                }
            }
        }
        seeds.put("stream-tcp-vectors", stream.toByteArray());
        return seeds;
    }

    @Test
    void seedsAreTheSharedVectors() throws IOException {
        Map<String, byte[]> expected = seeds();
        if (Boolean.getBoolean("stagecoach.updateSeeds")) {
            Files.createDirectories(DIR);
            for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                Files.write(DIR.resolve(e.getKey()), e.getValue());
            }
        }
        Map<String, String> onDisk = new TreeMap<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.matches("(vector|stream)-.*")) {
                    onDisk.put(name, TestVectors.hex(Files.readAllBytes(f)));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Map<String, String> want = new TreeMap<>();
        expected.forEach((k, v) -> want.put(k, TestVectors.hex(v)));
        assertEquals(want, onDisk, "seed corpus in " + DIR + " is stale: run with -Dstagecoach.updateSeeds=true");
    }
}
