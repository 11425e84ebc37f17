package io.stagecoach.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The Stagecoach release this jar was built from. */
public final class Version {

    private static final String VERSION = load();

    private Version() {
    }

    /** The Maven project version, for example {@code 0.1.0-SNAPSHOT}. */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read version.properties", e);
        }
    }
}
