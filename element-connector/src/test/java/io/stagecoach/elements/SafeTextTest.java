package io.stagecoach.elements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@link SafeText} lets through to a log line or a terminal, and how it escapes the rest. */
class SafeTextTest {

    private static final String ESC = "\u001b";

    /** Plain ASCII reasons are unchanged: the ban log's lines read as before. */
    @Test
    void printableAsciiIsUnchangedInLogs() {
        assertEquals("TKL 9 is reserved (RFC 7252 3)", SafeText.forLog("TKL 9 is reserved (RFC 7252 3)"));
    }

    /** CR and LF would start a forged line; ESC a terminal sequence; each becomes a visible escape. */
    @Test
    void lineBreaksAndEscapeSequencesCannotReachALog() {
        String forged = "x\r\n12:00:00.000 INFO  [t] io.stagecoach.ban - forged" + ESC + "[2J";
        String safe = SafeText.forLog(forged);
        assertEquals("x\\x0d\\x0a12:00:00.000 INFO  [t] io.stagecoach.ban - forged\\x1b[2J", safe);
        assertTrue(safe.chars().allMatch(c -> c >= 0x20 && c < 0x7F), safe);
    }

    /** Non-ASCII, DEL, C1 controls (U+009B is CSI), bidi overrides and lone surrogates, and the backslash itself. */
    @Test
    void everythingOutsidePrintableAsciiIsEscapedInLogs() {
        assertEquals("\\x7f \\x9b \\xe9 \\u202e \\ud800 \\\\x41", SafeText.forLog("\u007f \u009b é \u202e \ud800 \\x41"));
        assertEquals("\\ud83d\\ude00", SafeText.forLog("\ud83d\ude00"), "a pair: both halves");
        assertEquals("null", SafeText.forLog(null));
    }

    /** A long reason is cut at the cap, never inside an escape, and says how long it was. */
    @Test
    void logTextIsCappedWithoutSplittingAnEscape() {
        assertEquals("abc...(10 chars)", SafeText.forLog("abcdefghij", 3));
        assertEquals("abcdefghij", SafeText.forLog("abcdefghij", 10));
        assertEquals("ab...(3 chars)", SafeText.forLog("ab\n", 5), "\\x0a would end at 6 > 5");
        String huge = SafeText.forLog("\n".repeat(100_000));
        assertTrue(huge.length() <= SafeText.LOG_MAX_CHARS + 20, huge.length() + "");
        assertTrue(huge.endsWith("...(100000 chars)"), huge.substring(huge.length() - 30));
        assertThrows(IllegalArgumentException.class, () -> SafeText.forLog("x", -1));
    }

    /** On a terminal other scripts stay readable; controls and format characters do not pass. */
    @Test
    void terminalKeepsPrintableUnicodeAndEscapesControls() {
        assertEquals("Grüße 温度 \ud83d\ude00", SafeText.forTerminal("Grüße 温度 \ud83d\ude00", false));
        assertEquals("\\x1b[31mred\\x07 \\x9b2J \\u202egnp.exe \\u200b \\u2028 \\ue000 \\udc00",
                SafeText.forTerminal(ESC + "[31mred\u0007 \u009b2J \u202egnp.exe \u200b \u2028 \ue000 \udc00", false));
        assertEquals("C:\\temp /-\\", SafeText.forTerminal("C:\\temp /-\\", true), "backslashes stay on a terminal");
    }

    /** Multi-line text keeps LF, TAB and CRLF; a lone CR (which rewrites the line) is still escaped. */
    @Test
    void multiLineKeepsLineFeedsButNotALoneCarriageReturn() {
        assertEquals("a\n\tb\r\nc\\x0dd", SafeText.forTerminal("a\n\tb\r\nc\rd", true));
        assertEquals("a\\x0a\\x09b\\x0d\\x0a", SafeText.forTerminal("a\n\tb\r\n", false));
        assertEquals("x\\x0d", SafeText.forTerminal("x\r", true), "CR at the end");
    }

    /** Bytes: printable ASCII as is, everything else \xNN, a high byte never decoded. */
    @Test
    void bytesAreShownAsEscapedAscii() {
        byte[] b = {'o', 'k', 0x1b, '[', (byte) 0x9b, (byte) 0xc3, (byte) 0xa9, '\\', 0, '\n'};
        assertEquals("ok\\x1b[\\x9b\\xc3\\xa9\\\\\\x00\\x0a", SafeText.forTerminal(b));
        assertEquals("plain text", SafeText.forTerminal("plain text".getBytes(StandardCharsets.US_ASCII)));
    }
}
