package io.stagecoach.elements.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Immutable, thread-safe values for the {@link Definition}s of some {@link ModuleDefinitions}.
 *
 * <p>{@link #get(Definition)} returns the configured value, or the definition's default. Values
 * come from four sources; a later one in this list wins, whatever order the builder methods
 * were called in:
 * <ol>
 *   <li>defaults of the definitions, then values copied by {@link #newBuilder()};</li>
 *   <li>properties files and {@link Properties} ({@link Builder#load}, {@link Builder#loadFile});</li>
 *   <li>system properties {@code stagecoach.<key>} ({@link Builder#applySystemProperties()});</li>
 *   <li>values set in code ({@link Builder#set}).</li>
 * </ol>
 */
public final class Configuration {

    /** Prefix of system properties that override keys, as in {@code -Dstagecoach.coap.ack-timeout=3s}. */
    public static final String SYSTEM_PROPERTY_PREFIX = "stagecoach.";

    private final Definitions definitions;
    private final Map<Definition<?>, Object> values;

    private Configuration(Definitions definitions, Map<Definition<?>, Object> values) {
        this.definitions = definitions;
        this.values = Map.copyOf(values);
    }

    /** A builder that knows the keys of {@code groups}. */
    public static Builder builder(ModuleDefinitions... groups) {
        return new Builder(Definitions.of(groups));
    }

    public static Builder builder(Definitions definitions) {
        return new Builder(Objects.requireNonNull(definitions, "definitions"));
    }

    /** Only the defaults of {@code groups}. */
    public static Configuration defaults(ModuleDefinitions... groups) {
        return builder(groups).build();
    }

    /**
     * The value set for {@code definition}, or its default.
     *
     * @throws IllegalArgumentException if a different definition with the same name is registered,
     *     which would otherwise silently read the default
     */
    public <T> T get(Definition<T> definition) {
        Object value = values.get(definition);
        if (value != null) {
            return definition.type().cast(value);
        }
        definitions.find(definition.name()).filter(known -> known != definition).ifPresent(known -> {
            throw new IllegalArgumentException("another definition is registered as " + definition.name());
        });
        return definition.defaultValue();
    }

    /** Whether a value was configured for {@code definition} rather than left at its default. */
    public boolean isSet(Definition<?> definition) {
        return values.containsKey(definition);
    }

    public Definitions definitions() {
        return definitions;
    }

    /** A builder holding these values at the lowest precedence above the defaults. */
    public Builder newBuilder() {
        Builder builder = new Builder(definitions);
        builder.layers.get(Layer.BASE).putAll(values);
        return builder;
    }

    /** The configured values (not the defaults), as {@code key=value} sorted by key. */
    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        values.forEach((d, v) -> shown.put(d.name(), formatted(d, v)));
        return "Configuration" + shown;
    }

    @SuppressWarnings("unchecked")
    private static <T> String formatted(Definition<T> definition, Object value) {
        return definition.format((T) value);
    }

    /** The sources of values, lowest precedence first. */
    private enum Layer { BASE, FILE, SYSTEM, EXPLICIT }

    /**
     * Collects values per source and merges them by precedence in {@link #build()}. Every value
     * is validated when it is added, so errors point at the line that caused them.
     */
    public static final class Builder {
        private final Definitions definitions;
        private final Map<Layer, Map<Definition<?>, Object>> layers = new EnumMap<>(Layer.class);

        private Builder(Definitions definitions) {
            this.definitions = definitions;
            for (Layer layer : Layer.values()) {
                layers.put(layer, new HashMap<>());
            }
        }

        /**
         * Sets a value with the highest precedence.
         *
         * @throws ConfigurationException (an {@link IllegalArgumentException}) naming the key and
         *     the violated bound if {@code value} is null or out of range
         */
        public <T> Builder set(Definition<T> definition, T value) {
            requireNoClash(definition);
            layers.get(Layer.EXPLICIT).put(definition, definition.validate(value));
            return this;
        }

        /**
         * Reads {@code key=value} pairs; keys are definition names without prefix.
         *
         * @param origin where the properties came from, for error messages
         * @throws ConfigurationException for an unknown key (naming close matches) or a bad value
         */
        public Builder load(Properties properties, String origin) {
            // Sorted so that the first error reported does not depend on hash order.
            for (Map.Entry<String, String> entry : new TreeMap<>(toMap(properties)).entrySet()) {
                String key = entry.getKey();
                String text = entry.getValue();
                Definition<?> definition = definitions.find(key).orElseThrow(
                        () -> ConfigurationException.unknownKey(key, text, definitions.closeMatches(key), origin));
                layers.get(Layer.FILE).put(definition, definition.parse(text, origin));
            }
            return this;
        }

        public Builder load(Properties properties) {
            return load(properties, "properties");
        }

        /**
         * Reads a UTF-8 properties file; see {@link #load(Properties, String)}.
         *
         * @throws IOException if the file cannot be read
         */
        public Builder loadFile(Path file) throws IOException {
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
            return load(properties, "file " + file);
        }

        /** Applies {@link System#getProperties()}; see {@link #applySystemProperties(Properties)}. */
        public Builder applySystemProperties() {
            return applySystemProperties(System.getProperties());
        }

        /**
         * Applies every property {@code stagecoach.<key>} whose key is registered. Unknown
         * {@code stagecoach.*} properties are ignored, unlike unknown keys in files: system
         * properties are shared by the whole JVM and may target configurations with other groups.
         *
         * @throws ConfigurationException for a bad value of a known key
         */
        public Builder applySystemProperties(Properties systemProperties) {
            for (Map.Entry<String, String> entry : new TreeMap<>(toMap(systemProperties)).entrySet()) {
                String property = entry.getKey();
                if (!property.startsWith(SYSTEM_PROPERTY_PREFIX)) {
                    continue;
                }
                String key = property.substring(SYSTEM_PROPERTY_PREFIX.length());
                definitions.find(key).ifPresent(definition -> layers.get(Layer.SYSTEM).put(definition,
                        definition.parse(entry.getValue(), "system property " + property)));
            }
            return this;
        }

        public Configuration build() {
            Map<Definition<?>, Object> merged = new HashMap<>();
            for (Layer layer : Layer.values()) {
                merged.putAll(layers.get(layer));
            }
            return new Configuration(definitions, merged);
        }

        private void requireNoClash(Definition<?> definition) {
            definitions.find(definition.name()).filter(known -> known != definition).ifPresent(known -> {
                throw new IllegalArgumentException("another definition is registered as " + definition.name());
            });
        }

        private static Map<String, String> toMap(Properties properties) {
            Map<String, String> map = new HashMap<>();
            // stringPropertyNames() is a snapshot, safe while other threads set system properties.
            for (String name : properties.stringPropertyNames()) {
                map.put(name, properties.getProperty(name));
            }
            return map;
        }
    }
}
