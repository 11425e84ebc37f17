package io.stagecoach.core.config;

import io.stagecoach.elements.config.ConfigurationDocs;
import io.stagecoach.elements.config.Definitions;
import io.stagecoach.elements.config.UdpConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code docs/configuration.md} from every definition group (UDP connector, CoAP).
 * Usage: {@code ConfigDocsMain [output-file]}; ConfigurationDocsTest fails when the checked-in
 * file is stale and rewrites it when run with {@code -Dstagecoach.updateDocs=true}.
 */
public final class ConfigDocsMain {

    /** The definition groups of all modules, in documentation order. */
    public static final Definitions ALL = Definitions.of(UdpConfig.DEFINITIONS, CoapConfig.DEFINITIONS);

    private ConfigDocsMain() {
    }

    /** The complete text of docs/configuration.md. */
    public static String render() {
        return ConfigurationDocs.render("Configuration reference",
                "io.stagecoach.core.config.ConfigDocsMain (or: mvn -pl core -am verify -Dstagecoach.updateDocs=true)",
                ALL.groups());
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Files.writeString(out, render(), StandardCharsets.UTF_8);
        System.out.println("wrote " + out.toAbsolutePath());
    }
}
