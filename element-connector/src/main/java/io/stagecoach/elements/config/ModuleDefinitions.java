package io.stagecoach.elements.config;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A named group of {@link Definition}s that belong to one module, for example "CoAP" or
 * "UDP connector". Documentation is generated per group; a {@link Configuration} knows the keys
 * of the groups it was built for.
 */
public final class ModuleDefinitions {

    private final String name;
    private final String description;
    private final List<Definition<?>> definitions;

    private ModuleDefinitions(String name, String description, List<Definition<?>> definitions) {
        this.name = name;
        this.description = description;
        this.definitions = definitions;
    }

    /**
     * @param description one sentence for the documentation heading
     * @throws IllegalArgumentException if two definitions share a name or none is given
     */
    public static ModuleDefinitions of(String name, String description, Definition<?>... definitions) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        if (definitions.length == 0) {
            throw new IllegalArgumentException("group " + name + " has no definitions");
        }
        Set<String> names = new HashSet<>();
        for (Definition<?> d : definitions) {
            // A null here usually means a constant referenced before its initialisation.
            Objects.requireNonNull(d, "definition in group " + name);
            if (!names.add(d.name())) {
                throw new IllegalArgumentException("group " + name + " defines " + d.name() + " twice");
            }
        }
        List<Definition<?>> sorted = List.of(definitions).stream()
                .sorted(Comparator.comparing(Definition::name)).toList();
        return new ModuleDefinitions(name, description, sorted);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The definitions, sorted by name so that documentation is deterministic. */
    public List<Definition<?>> definitions() {
        return definitions;
    }

    @Override
    public String toString() {
        return name + definitions;
    }
}
