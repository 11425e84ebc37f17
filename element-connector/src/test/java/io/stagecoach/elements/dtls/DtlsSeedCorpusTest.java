package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The seed files the DTLS Jazzer targets replay in {@code mvn verify} are what {@link DtlsFuzzSeeds}
 * builds. Seeds are named {@code seed-*}; other files are crash inputs Jazzer found, kept as they
 * are. {@code -Dstagecoach.updateSeeds=true} rewrites the seeds.
 */
class DtlsSeedCorpusTest {

    private static final Path INPUTS = Path.of("src/test/resources/io/stagecoach/elements/dtls");

    @Test
    void recordSeeds() {
        check(INPUTS.resolve("DtlsRecordFuzzTestInputs/records"), DtlsFuzzSeeds.records());
    }

    @Test
    void fragmentSeeds() {
        check(INPUTS.resolve("HandshakeFragmentFuzzTestInputs/fragments"), DtlsFuzzSeeds.fragments());
    }

    @Test
    void serverSeeds() {
        check(INPUTS.resolve("DtlsServerFuzzTestInputs/datagrams"), DtlsFuzzSeeds.datagrams());
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
                    if (name.startsWith("seed-")) {
                        onDisk.put(name, HexFormat.of().formatHex(Files.readAllBytes(f)));
                    }
                }
            }
            Map<String, String> want = new TreeMap<>();
            expected.forEach((k, v) -> want.put(k, HexFormat.of().formatHex(v)));
            assertEquals(want, onDisk, "seed corpus in " + dir + " is stale: run with -Dstagecoach.updateSeeds=true");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
