package io.stagecoach.core.link;

import java.util.ArrayList;
import java.util.List;

/**
 * A discovery filter built from the Uri-Query of a {@code /.well-known/core} request
 * (RFC 6690 §4.1). Each {@code name=value} argument selects the links whose attribute
 * {@code name} has a value equal to {@code value}; a value ending in {@code *} is a prefix match,
 * so {@code rt=*} selects every link that has {@code rt}. {@code href} matches the link target
 * ({@code href=/link*}). For {@code rt}, {@code if} and {@code ct} a link matches if any one of its
 * values matches. An argument without {@code =} selects links having that attribute.
 *
 * <p>RFC 6690 §4.1 defines a single filter argument; Californium answers 4.02 to several.
 * Stagecoach ANDs them: {@code ?rt=Type1&if=If1} selects links satisfying both.
 */
public final class LinkQuery {

    /** Selects every link. */
    public static final LinkQuery ALL = new LinkQuery(List.of());

    private record Term(String name, String pattern) {
        boolean matches(WebLink link) {
            if (name.equals("href")) {
                return match(link.target());
            }
            if (!link.has(name)) {
                return false;
            }
            List<String> values = link.values(name);
            if (pattern == null || pattern.equals("*")) {
                return true;
            }
            if (values.isEmpty()) {
                // a flag attribute such as obs has no value to compare but "obs=" names it
                return pattern.isEmpty();
            }
            for (String v : values) {
                if (match(v)) {
                    return true;
                }
            }
            return false;
        }

        private boolean match(String value) {
            if (pattern == null) {
                return true;
            }
            if (pattern.endsWith("*")) {
                return value.startsWith(pattern.substring(0, pattern.length() - 1));
            }
            return value.equals(pattern);
        }
    }

    private final List<Term> terms;

    private LinkQuery(List<Term> terms) {
        this.terms = terms;
    }

    /** The filter for the Uri-Query arguments of a request, e.g. {@code ["rt=Type1", "if=If*"]}. */
    public static LinkQuery of(List<String> uriQuery) {
        List<Term> terms = new ArrayList<>(uriQuery.size());
        for (String arg : uriQuery) {
            if (arg.isEmpty()) {
                continue;
            }
            int eq = arg.indexOf('=');
            if (eq < 0) {
                terms.add(new Term(arg, null));
            } else {
                terms.add(new Term(arg.substring(0, eq), unquote(arg.substring(eq + 1))));
            }
        }
        return terms.isEmpty() ? ALL : new LinkQuery(List.copyOf(terms));
    }

    // Clients sometimes send the filter value quoted (rt="x"); the quotes are not part of the value.
    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    /** Whether {@code link} satisfies every argument. */
    public boolean matches(WebLink link) {
        for (Term t : terms) {
            if (!t.matches(link)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "LinkQuery" + terms;
    }
}
