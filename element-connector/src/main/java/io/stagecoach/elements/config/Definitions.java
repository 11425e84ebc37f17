package io.stagecoach.elements.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The registry of all keys a {@link Configuration} knows: a fixed list of
 * {@link ModuleDefinitions} whose keys are unique across groups.
 */
public final class Definitions {

    private final List<ModuleDefinitions> groups;
    private final Map<String, Definition<?>> byName;

    private Definitions(List<ModuleDefinitions> groups, Map<String, Definition<?>> byName) {
        this.groups = groups;
        this.byName = byName;
    }

    /** @throws IllegalArgumentException if a key is defined in two groups */
    public static Definitions of(ModuleDefinitions... groups) {
        Map<String, Definition<?>> byName = new LinkedHashMap<>();
        List<ModuleDefinitions> distinct = new ArrayList<>();
        for (ModuleDefinitions group : groups) {
            if (distinct.contains(group)) {
                continue;
            }
            distinct.add(group);
            for (Definition<?> d : group.definitions()) {
                if (byName.putIfAbsent(d.name(), d) != null) {
                    throw new IllegalArgumentException(d.name() + " is defined by two groups");
                }
            }
        }
        return new Definitions(List.copyOf(distinct), Map.copyOf(byName));
    }

    /** The groups in the order given to {@link #of}. */
    public List<ModuleDefinitions> groups() {
        return groups;
    }

    public Optional<Definition<?>> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Whether {@code definition} itself (not only its name) is registered here. */
    public boolean contains(Definition<?> definition) {
        return byName.get(definition.name()) == definition;
    }

    /**
     * Up to three known keys that {@code name} was probably meant to be: small edit distance or
     * the same last segment, closest first.
     */
    public List<String> closeMatches(String name) {
        int limit = Math.max(2, name.length() / 4);
        record Match(String key, int distance) { }
        List<Match> matches = new ArrayList<>();
        for (String key : byName.keySet()) {
            int distance = editDistance(name, key);
            if (distance <= limit || lastSegment(key).equals(lastSegment(name))) {
                matches.add(new Match(key, distance));
            }
        }
        return matches.stream()
                .sorted(Comparator.comparingInt(Match::distance).thenComparing(Match::key))
                .limit(3).map(Match::key).toList();
    }

    private static String lastSegment(String key) {
        return key.substring(key.lastIndexOf('.') + 1);
    }

    /** Levenshtein distance; keys are short, so the quadratic table is cheap. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
