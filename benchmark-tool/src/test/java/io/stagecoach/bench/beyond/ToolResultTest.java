package io.stagecoach.bench.beyond;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Java side of coap-observe and coap-block: their output read, the summary built. No gcc needed. */
class ToolResultTest {

    @Test
    void resultLineBecomesAMapAndEveryLineIsKept() throws IOException {
        ToolResult r = ToolResult.parse("register observers=2 registered=2 refused=0 unanswered=0 seconds=0.1\n"
                + "round seq=4 complete=1 change_to_last_ms=3.5\n"
                + "result observers=2 registered=2 median_change_to_last_ms=3.500 con=1 non=3\n");
        assertEquals(3, r.lines().size());
        assertEquals("2", r.get("registered"));
        assertEquals(3.5, r.number("median_change_to_last_ms"), 1e-9);
        assertEquals("-", r.get("stale"), "a key the tool did not print");
        assertThrows(IllegalArgumentException.class, () -> r.number("stale"));
    }

    @Test
    void outputWithoutAResultLineIsAnError() {
        assertThrows(IOException.class, () -> ToolResult.parse("coap-observe: no observation was registered\n"));
    }

    @Test
    void summaryHasARowPerRunWithTheKindsKeys() throws IOException {
        ToolResult a = ToolResult.parse("result bodies=20 goodput_MBps=17.600 median_body_ms=57.4\n");
        ToolResult b = ToolResult.parse("result bodies=20 goodput_MBps=27.010 median_body_ms=38.4\n");
        String s = BeyondRun.summary(BeyondRun.Kind.BLOCKWISE, List.of("stagecoach", "libcoap"), List.of(a, b));
        String[] lines = s.strip().split("\n");
        assertEquals(3, lines.length, s);
        assertTrue(lines[0].contains("goodput_MBps"), s);
        assertTrue(lines[1].startsWith("stagecoach") && lines[1].contains("17.600"), s);
        assertTrue(lines[2].startsWith("libcoap") && lines[2].contains("27.010"), s);
    }

    @Test
    void theObserveValueCarriesSequenceAndNanoTime() {
        try (ChangingValue v = new ChangingValue()) {
            assertTrue(v.text().startsWith("0 "), v.text());
            long before = System.nanoTime();
            v.next();
            String[] f = new String(v.bytes(), StandardCharsets.UTF_8).split(" ");
            assertEquals("1", f[0]);
            assertTrue(Long.parseLong(f[1]) >= before, "stamped at the change");
            assertThrows(IllegalArgumentException.class, () -> v.start(0, () -> { }));
        }
    }

    @Test
    void theLargeBodyHasTheAskedSizeAndIsNotConstant() {
        byte[] b = ChangingValue.largeBody(4096);
        assertEquals(4096, b.length);
        assertTrue(b[1] != b[2] && b[256] != b[0], "a pattern, so that a misplaced block shows");
    }
}
