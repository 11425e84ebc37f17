package io.stagecoach.core.config;

import io.stagecoach.elements.config.ConfigurationDocs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code docs/configuration.md} from every definition group the library reads
 * ({@link CoapConfig#ALL}). A test-side tool: the runtime never needs it. ConfigurationDocsTest
 * fails when the checked-in file is stale and rewrites it when run with
 * {@code -Dstagecoach.updateDocs=true}.
 */
public final class ConfigDocsMain {

    private ConfigDocsMain() {
    }

    /** The complete text of docs/configuration.md. */
    public static String render() {
        return ConfigurationDocs.render("Configuration reference",
                "mvn -pl core -am verify -Dstagecoach.updateDocs=true",
                CoapConfig.ALL.groups());
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Files.writeString(out, render(), StandardCharsets.UTF_8);
        System.out.println("wrote " + out.toAbsolutePath());
    }
}
