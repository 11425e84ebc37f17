package io.stagecoach.elements;

/**
 * Escapes text that a remote party chose (a reason built from a datagram, a Uri-Path, a payload,
 * an option value) before it goes into a log line or onto a terminal, so that the party can
 * neither forge a line (CR, LF) nor send terminal escape sequences (ESC, the C1 control CSI),
 * nor hide text behind bidirectional overrides.
 *
 * <p>Escapes are {@code \xNN} for a character up to U+00FF, <code>&#92;uNNNN</code> above it. In
 * log lines and escaped bytes a backslash becomes {@code \\}, so they read back unambiguously;
 * terminal text keeps its backslashes (ASCII art, paths), since a literal {@code \x1b} there
 * is only text.
 *
 * <ul>
 *   <li>{@link #forLog(CharSequence, int)}: one line of printable ASCII (U+0020..U+007E); every
 *       other character is escaped; cut after a maximum length.</li>
 *   <li>{@link #forTerminal(CharSequence, boolean)}: printable Unicode stays readable; control
 *       and format characters, line and paragraph separators, unassigned and private-use code
 *       points and lone surrogates are escaped; tab and line feed only with {@code multiLine}.</li>
 *   <li>{@link #forTerminal(byte[])}: bytes of a binary payload, printable ASCII as it is.</li>
 * </ul>
 */
public final class SafeText {

    /** The default length cap of {@link #forLog(CharSequence)}, in output characters. */
    public static final int LOG_MAX_CHARS = 200;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SafeText() {
    }

    /** {@link #forLog(CharSequence, int)} with the cap {@link #LOG_MAX_CHARS}. */
    public static String forLog(CharSequence text) {
        return forLog(text, LOG_MAX_CHARS);
    }

    /**
     * {@code text} as one line of printable ASCII: every other character escaped, a backslash
     * doubled; when the result would exceed {@code maxChars}, it is cut before the escape that
     * would cross the cap and {@code ...(N chars)} is appended, N being the length of
     * {@code text}. {@code null} gives {@code "null"}.
     */
    public static String forLog(CharSequence text, int maxChars) {
        if (maxChars < 0) {
            throw new IllegalArgumentException("maxChars must not be negative: " + maxChars);
        }
        if (text == null) {
            return "null";
        }
        int n = text.length();
        StringBuilder sb = new StringBuilder(Math.min(n, maxChars) + 16);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            int before = sb.length();
            if (c >= 0x20 && c < 0x7F) {
                if (c == '\\') {
                    sb.append('\\');
                }
                sb.append(c);
            } else {
                escape(sb, c);
            }
            if (sb.length() > maxChars) {
                sb.setLength(before);
                return sb.append("...(").append(n).append(" chars)").toString();
            }
        }
        return sb.toString();
    }

    /**
     * {@code text} for a terminal: printable characters of any script stay as they are; control
     * characters (C0, DEL, C1), format characters (bidirectional overrides, zero-width ones),
     * line and paragraph separators, unassigned and private-use code points and lone surrogates
     * are escaped; a backslash stays as it is. With {@code multiLine}, tab, line feed and a
     * carriage return directly before a line feed are kept, so multi-line text stays multi-line
     * (a lone carriage return, which could overwrite what the line showed, is still escaped).
     */
    public static String forTerminal(CharSequence text, boolean multiLine) {
        if (text == null) {
            return "null";
        }
        int n = text.length();
        StringBuilder sb = new StringBuilder(n + 16);
        for (int i = 0; i < n; ) {
            int cp = Character.codePointAt(text, i);
            int len = Character.charCount(cp);
            if (multiLine && (cp == '\n' || cp == '\t'
                    || (cp == '\r' && i + 1 < n && text.charAt(i + 1) == '\n'))) {
                sb.append((char) cp);
            } else if (isShown(cp)) {
                sb.appendCodePoint(cp);
            } else {
                for (int k = 0; k < len; k++) {
                    escape(sb, text.charAt(i + k));
                }
            }
            i += len;
        }
        return sb.toString();
    }

    /**
     * Bytes (a payload that is not text) for a terminal: printable ASCII as it is, a backslash
     * doubled, every other byte {@code \xNN}. One line.
     */
    public static String forTerminal(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int v = b & 0xFF;
            if (v == '\\') {
                sb.append("\\\\");
            } else if (v >= 0x20 && v < 0x7F) {
                sb.append((char) v);
            } else {
                escape(sb, (char) v);
            }
        }
        return sb.toString();
    }

    /** Whether a code point can be shown on a terminal as it is. */
    private static boolean isShown(int cp) {
        switch (Character.getType(cp)) {
            case Character.CONTROL:
            case Character.FORMAT:
            case Character.LINE_SEPARATOR:
            case Character.PARAGRAPH_SEPARATOR:
            case Character.SURROGATE:
            case Character.UNASSIGNED:
            case Character.PRIVATE_USE:
                return false;
            default:
                return true;
        }
    }

    private static void escape(StringBuilder sb, char c) {
        if (c <= 0xFF) {
            sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
        } else {
            sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF])
                    .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
        }
    }
}
