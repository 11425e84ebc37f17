package io.stagecoach.core.link;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The CoRE link format (RFC 6690, media type {@code application/link-format}, Content-Format 40):
 * serializes links for {@code /.well-known/core} and parses a discovery answer into
 * {@link WebLink}s.
 *
 * <p>Quoting on output: {@code rt}, {@code if}, {@code title} and {@code anchor} are always
 * quoted (RFC 6690 §2 gives them a quoted-string form; Californium quotes them too); any other
 * attribute is written as a bare ptoken when it has one value made of ptoken characters (e.g.
 * {@code ct=0}, {@code sz=1280}) and quoted otherwise, several values joined by a space
 * ({@code ct="0 41"}). Inside quotes {@code "} and {@code \} are escaped with {@code \}.
 */
public final class LinkFormat {

    /** Attributes whose value is a space-separated list (RFC 6690 §3.1, §3.2; RFC 7252 §7.2.1). */
    public static final Set<String> MULTI_VALUED = Set.of(LinkAttributes.RESOURCE_TYPE,
            LinkAttributes.INTERFACE, LinkAttributes.CONTENT_TYPE);

    private static final Set<String> ALWAYS_QUOTED = Set.of(LinkAttributes.RESOURCE_TYPE,
            LinkAttributes.INTERFACE, LinkAttributes.TITLE, LinkAttributes.ANCHOR);

    // RFC 6690 §2 ptoken characters besides ALPHA and DIGIT.
    private static final String PTOKEN_PUNCT = "!#$%&'()*+-./:<=>?@[]^_`{|}~";

    private LinkFormat() {
    }

    /** The links joined by {@code ,}, e.g. {@code </a>;ct=0,</b>;rt="x"}. */
    public static String serialize(List<WebLink> links) {
        StringBuilder sb = new StringBuilder();
        for (WebLink link : links) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            append(sb, link);
        }
        return sb.toString();
    }

    static void append(StringBuilder sb, WebLink link) {
        sb.append('<').append(link.target()).append('>');
        for (Map.Entry<String, List<String>> e : link.attributes().entrySet()) {
            sb.append(';').append(e.getKey());
            List<String> values = e.getValue();
            if (values.isEmpty()) {
                continue;
            }
            String joined = String.join(" ", values);
            sb.append('=');
            if (!ALWAYS_QUOTED.contains(e.getKey()) && values.size() == 1 && isPtoken(joined)) {
                sb.append(joined);
            } else {
                quote(sb, joined);
            }
        }
    }

    private static void quote(StringBuilder sb, String value) {
        sb.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }

    static boolean isPtoken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!alnum && PTOKEN_PUNCT.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses a link-format document (RFC 6690 §2). Whitespace around {@code ,} and {@code ;} is
     * tolerated. Values of {@code rt}, {@code if} and {@code ct} are split at spaces; a repeated
     * attribute appends its values.
     *
     * @throws IllegalArgumentException naming the position when the text is not link-format
     */
    public static List<WebLink> parse(String text) {
        return new Parser(text).links();
    }

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        List<WebLink> links() {
            List<WebLink> out = new ArrayList<>();
            skipSpace();
            if (pos == s.length()) {
                return out;
            }
            while (true) {
                out.add(link());
                skipSpace();
                if (pos == s.length()) {
                    return out;
                }
                expect(',');
                skipSpace();
            }
        }

        private WebLink link() {
            expect('<');
            int end = s.indexOf('>', pos);
            if (end < 0) {
                throw error("'>' missing after link target");
            }
            String target = s.substring(pos, end);
            pos = end + 1;
            Map<String, List<String>> attrs = new LinkedHashMap<>();
            skipSpace();
            while (pos < s.length() && s.charAt(pos) == ';') {
                pos++;
                skipSpace();
                String name = name();
                List<String> values = attrs.computeIfAbsent(name, k -> new ArrayList<>());
                skipSpace();
                if (pos < s.length() && s.charAt(pos) == '=') {
                    pos++;
                    skipSpace();
                    String value = pos < s.length() && s.charAt(pos) == '"' ? quoted() : token();
                    if (MULTI_VALUED.contains(name)) {
                        for (String v : value.trim().split(" +")) {
                            if (!v.isEmpty()) {
                                values.add(v);
                            }
                        }
                    } else {
                        values.add(value);
                    }
                }
                skipSpace();
            }
            return new WebLink(target, attrs);
        }

        private String name() {
            int start = pos;
            while (pos < s.length() && ";,= \t".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
            if (pos == start) {
                throw error("attribute name expected");
            }
            return s.substring(start, pos);
        }

        private String token() {
            int start = pos;
            while (pos < s.length() && ";, \t".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
            return s.substring(start, pos);
        }

        private String quoted() {
            StringBuilder sb = new StringBuilder();
            pos++; // opening quote
            while (pos < s.length()) {
                char c = s.charAt(pos++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c == '\\' && pos < s.length()) {
                    c = s.charAt(pos++);
                }
                sb.append(c);
            }
            throw error("unterminated quoted string");
        }

        private void expect(char c) {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw error("'" + c + "' expected");
            }
            pos++;
        }

        private void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        private IllegalArgumentException error(String what) {
            String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
            return new IllegalArgumentException("link-format: " + what + " at index " + pos + " in \"" + shown + "\"");
        }
    }
}
