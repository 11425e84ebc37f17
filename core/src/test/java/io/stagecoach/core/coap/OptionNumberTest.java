package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OptionNumberTest {

    /** RFC 7252 Table 4 columns C, U, N (plus R and the lengths) for every option it defines. */
    @Test
    void table4Properties() {
        // number, critical, unsafe, nocachekey, repeatable, min, max
        Object[][] table = {
            {OptionNumber.IF_MATCH, 1, true, false, false, true, 0, 8},
            {OptionNumber.URI_HOST, 3, true, true, false, false, 1, 255},
            {OptionNumber.ETAG, 4, false, false, false, true, 1, 8},
            {OptionNumber.IF_NONE_MATCH, 5, true, false, false, false, 0, 0},
            {OptionNumber.URI_PORT, 7, true, true, false, false, 0, 2},
            {OptionNumber.LOCATION_PATH, 8, false, false, false, true, 0, 255},
            {OptionNumber.URI_PATH, 11, true, true, false, true, 0, 255},
            {OptionNumber.CONTENT_FORMAT, 12, false, false, false, false, 0, 2},
            {OptionNumber.MAX_AGE, 14, false, true, false, false, 0, 4},
            {OptionNumber.URI_QUERY, 15, true, true, false, true, 0, 255},
            {OptionNumber.ACCEPT, 17, true, false, false, false, 0, 2},
            {OptionNumber.LOCATION_QUERY, 20, false, false, false, true, 0, 255},
            {OptionNumber.PROXY_URI, 35, true, true, false, false, 1, 1034},
            {OptionNumber.PROXY_SCHEME, 39, true, true, false, false, 1, 255},
            {OptionNumber.SIZE1, 60, false, false, true, false, 0, 4},
        };
        for (Object[] row : table) {
            OptionNumber n = (OptionNumber) row[0];
            assertEquals(row[1], n.number(), n + " number");
            assertEquals(row[2], n.isCritical(), n + " critical");
            assertEquals(row[3], n.isUnsafe(), n + " unsafe");
            assertEquals(row[4], n.isNoCacheKey(), n + " no-cache-key");
            assertEquals(row[5], n.isRepeatable(), n + " repeatable");
            assertEquals(row[6], n.minLength(), n + " min length");
            assertEquals(row[7], n.maxLength(), n + " max length");
            assertTrue(n.isKnown());
        }
    }

    @Test
    void laterRfcOptions() {
        assertTrue(OptionNumber.BLOCK2.isCritical() && OptionNumber.BLOCK2.isUnsafe());
        assertTrue(OptionNumber.SIZE2.isNoCacheKey(), "Size2 28: (28 & 0x1e) == 0x1c");
        assertEquals(1, OptionNumber.HOP_LIMIT.minLength());
        assertEquals(40, OptionNumber.ECHO.maxLength());
        assertFalse(OptionNumber.ECHO.isCritical(), "Echo 252 is elective");
        assertTrue(OptionNumber.REQUEST_TAG.isRepeatable());
        assertFalse(OptionNumber.NO_RESPONSE.isCritical());
        assertTrue(OptionNumber.OSCORE.isCritical(), "OSCORE 9 is critical");
        assertSame(OptionNumber.OSCORE, OptionNumber.valueOf(9));
    }

    @Test
    void unknownNumbersAreKeptAsOpaque() {
        OptionNumber n = OptionNumber.valueOf(2049);
        assertFalse(n.isKnown());
        assertEquals(OptionNumber.Format.OPAQUE, n.format());
        assertEquals(65535, n.maxLength());
        assertTrue(n.isCritical());
        assertEquals(OptionNumber.valueOf(2049), n, "equal by number");
        assertEquals("Option2049", n.name());
        assertThrows(IllegalArgumentException.class, () -> OptionNumber.valueOf(65536));
    }

    @Test
    void valueOfFindsEveryDefinitionAndNothingElse() {
        OptionNumber.known().forEach((number, def) -> assertSame(def, OptionNumber.valueOf(number), def.name()));
        for (int number : new int[] {0, 2, 13, 253, 511, 512, 2049, 65535}) {
            assertFalse(OptionNumber.valueOf(number).isKnown(), "Option" + number);
            assertEquals(number, OptionNumber.valueOf(number).number());
        }
    }
}
