package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CodeTest {

    @Test
    void valueOfReturnsTheCanonicalConstant() {
        assertSame(Code.CONTENT, Code.valueOf(0x45));
        assertSame(Code.GET, Code.valueOf(1));
        assertSame(Code.EMPTY, Code.valueOf(0));
        assertSame(Code.TOO_MANY_REQUESTS, Code.of(4, 29));
        assertSame(Code.CONTINUE, Code.valueOf(0x5F));
    }

    @Test
    void unknownCodesAreKeptAndPrintedAsDigits() {
        Code c = Code.valueOf(0x9F);
        assertEquals(4, c.codeClass());
        assertEquals(31, c.detail());
        assertNull(c.name());
        assertEquals("4.31", c.toString());
        assertSame(c, Code.valueOf(0x9F), "one instance per value");
    }

    @Test
    void toStringHasDigitsAndName() {
        assertEquals("2.05 Content", Code.CONTENT.toString());
        assertEquals("0.07 iPATCH", Code.IPATCH.toString());
        assertEquals("2.31 Continue", Code.CONTINUE.toString());
        assertEquals("4.13", Code.REQUEST_ENTITY_TOO_LARGE.toDigits());
        assertEquals("Unprocessable Entity", Code.UNPROCESSABLE_ENTITY.name());
    }

    @Test
    void registeredCodesOfAllFourRfcs() {
        int[][] expected = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {2, 1}, {2, 2}, {2, 3},
            {2, 4}, {2, 5}, {2, 31}, {4, 0}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {4, 6}, {4, 8}, {4, 9},
            {4, 12}, {4, 13}, {4, 15}, {4, 22}, {4, 29}, {5, 0}, {5, 1}, {5, 2}, {5, 3}, {5, 4}, {5, 5}};
        for (int[] cd : expected) {
            assertTrue(Code.of(cd[0], cd[1]).name() != null, "named: " + cd[0] + "." + cd[1]);
        }
    }

    @Test
    void classPredicates() {
        assertTrue(Code.GET.isRequest());
        assertFalse(Code.EMPTY.isRequest());
        assertTrue(Code.EMPTY.isEmpty());
        assertTrue(Code.CONTENT.isResponse() && Code.CONTENT.isSuccess());
        assertTrue(Code.NOT_FOUND.isResponse() && !Code.NOT_FOUND.isSuccess() && Code.NOT_FOUND.isError());
        assertFalse(Code.of(1, 0).isResponse(), "class 1 is reserved");
        assertFalse(Code.of(7, 1).isResponse(), "class 7 is reserved");
        assertTrue(Code.of(0, 31).isRequest(), "unnamed method codes are still requests");
    }

    @Test
    void outOfRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Code.valueOf(256));
        assertThrows(IllegalArgumentException.class, () -> Code.of(8, 0));
        assertThrows(IllegalArgumentException.class, () -> Code.of(2, 32));
    }
}
