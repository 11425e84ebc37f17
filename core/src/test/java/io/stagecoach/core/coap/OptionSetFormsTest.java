package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two storage forms of {@link OptionSet}: one short option packed into a field, everything
 * else in an index array. Callers must not be able to tell them apart.
 */
class OptionSetFormsTest {

    /** A set wrapping {@code value} at {@code offset} of a buffer of {@code size} bytes. */
    private static OptionSet wrappedAt(int number, byte[] value, int offset, int size) {
        byte[] buf = new byte[size];
        System.arraycopy(value, 0, buf, offset, value.length);
        return OptionSet.wrapWire(buf, new int[] {number, offset, value.length});
    }

    private static byte[] filled(int length, char c) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) c);
        return b;
    }

    @Test
    void oneShortOptionReadsLikeAnyOther() {
        OptionSet set = OptionSet.wrapWire("..benchmark".getBytes(StandardCharsets.US_ASCII), 11, 2, 9);
        assertEquals(1, set.size());
        assertFalse(set.isEmpty());
        assertEquals(11, set.number(0));
        assertEquals(9, set.valueLength(0));
        assertEquals(List.of("benchmark"), set.uriPath());
        assertTrue(set.has(OptionNumber.URI_PATH));
        assertFalse(set.has(OptionNumber.URI_QUERY));
        assertTrue(set.isValid(0));
        assertEquals(Option.ofString(OptionNumber.URI_PATH, "benchmark"), set.option(0));
        assertEquals(List.of(Option.ofString(OptionNumber.URI_PATH, "benchmark")), set.asList());
        byte[] copy = new byte[11];
        set.copyValue(0, copy, 2);
        assertEquals("benchmark", new String(copy, 2, 9, StandardCharsets.US_ASCII));
        assertTrue(set.valueEquals(0, "benchmark".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(Arrays.hashCode("benchmark".getBytes(StandardCharsets.US_ASCII)), set.valueHashCode(0));
        assertEquals(OptionSet.builder().addUriPath("benchmark").build(), set);
        assertEquals(OptionSet.builder().addUriPath("benchmark").build().hashCode(), set.hashCode());
    }

    @Test
    void positionsBeyondTheOneOptionThrowAsForAnIndexedSet() {
        OptionSet one = OptionSet.builder().contentFormat(ContentFormat.JSON).build();
        OptionSet two = OptionSet.builder().contentFormat(ContentFormat.JSON).accept(0).build();
        for (OptionSet set : List.of(one, two)) {
            int beyond = set.size();
            assertThrows(IndexOutOfBoundsException.class, () -> set.number(beyond));
            assertThrows(IndexOutOfBoundsException.class, () -> set.valueLength(beyond));
            assertThrows(IndexOutOfBoundsException.class, () -> set.option(beyond));
            assertThrows(IndexOutOfBoundsException.class, () -> set.number(-1));
        }
    }

    @Test
    void theLimitsOfThePackedFormReadBackExactly() {
        // number 255 / length 255 / offset 65,535 fit the packed form; one more of each does not
        byte[] v255 = filled(255, 'a');
        byte[] v256 = filled(256, 'b');
        OptionSet packedEdge = wrappedAt(255, v255, 65_535, 65_535 + 255);
        OptionSet numberBeyond = wrappedAt(256, v255, 0, 255);
        OptionSet lengthBeyond = wrappedAt(255, v256, 0, 256);
        OptionSet offsetBeyond = wrappedAt(255, v255, 65_536, 65_536 + 255);
        assertEquals(255, packedEdge.number(0));
        assertEquals(255, packedEdge.valueLength(0));
        assertArrayEquals(v255, packedEdge.option(0).value());
        assertEquals(256, numberBeyond.number(0));
        assertArrayEquals(v255, numberBeyond.option(0).value());
        assertEquals(256, lengthBeyond.valueLength(0));
        assertArrayEquals(v256, lengthBeyond.option(0).value());
        assertArrayEquals(v255, offsetBeyond.option(0).value());
        // the same option in the packed form (a copy at offset 0) and the indexed form (offset 65,536)
        OptionSet copied = OptionSet.fromWire(v255, new int[] {255, 0, 255}, 1);
        assertEquals(copied, offsetBeyond);
        assertEquals(offsetBeyond, copied);
        assertEquals(copied.hashCode(), offsetBeyond.hashCode());
        assertEquals(packedEdge, offsetBeyond);
        assertNotEquals(packedEdge, numberBeyond);
    }

    @Test
    void oneLongOrHighNumberedOptionKeepsWorkingInTheIndexedForm() {
        String longUri = "coap://example.com/" + "x".repeat(300);
        OptionSet proxy = OptionSet.builder().proxyUri(longUri).build();
        assertEquals(longUri, proxy.proxyUri());
        OptionSet noResponse = OptionSet.builder().noResponse(26).build(); // No-Response is 258
        assertEquals(26, noResponse.noResponse());
        assertEquals(258, noResponse.number(0));
        assertEquals(OptionSet.fromWire(new byte[] {26}, new int[] {258, 0, 1}, 1), noResponse);
    }

    @Test
    void unknownAndInvalidSingleOptionsAreKept() {
        // 201: unknown, odd, so critical (RFC 7252 §5.4.1); kept in the packed form
        OptionSet unknown = OptionSet.wrapWire(new byte[] {7, 8}, 201, 0, 2);
        assertTrue(OptionNumber.isCritical(unknown.number(0)));
        assertEquals(List.of(Option.of(201, new byte[] {7, 8})), unknown.get(201));
        assertEquals(OptionSet.builder().add(Option.of(201, new byte[] {7, 8})).build(), unknown);
        // Content-Format of 3 bytes: invalid (0..2 bytes), kept, absent for the typed getter
        OptionSet invalid = OptionSet.wrapWire(new byte[] {1, 2, 3}, 12, 0, 3);
        assertEquals(-1, invalid.contentFormat());
        assertFalse(invalid.isValid(0));
        assertEquals(List.of(Option.of(12, new byte[] {1, 2, 3})), invalid.invalidOptions());
    }

    @Test
    void manyOptionsAndRepeatsStayInOrder() {
        OptionSet.Builder b = OptionSet.builder();
        List<String> segments = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            segments.add("s" + i);
            b.addUriPath("s" + i);
        }
        b.contentFormat(ContentFormat.CBOR).addUriQuery("a=1");
        OptionSet set = b.build();
        assertEquals(42, set.size());
        assertEquals(segments, set.uriPath());
        assertEquals(ContentFormat.CBOR.number(), set.contentFormat());
        assertEquals(List.of("a=1"), set.uriQuery());
        assertEquals(set, set.newBuilder().build());
        assertEquals(15, set.number(41));
    }

    @Test
    void wrapWireOfOneOptionChecksItsArguments() {
        byte[] buf = new byte[4];
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(buf, -1, 0, 1), "negative number");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(buf, 65_536, 0, 1), "number too high");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(buf, 11, -1, 1), "negative offset");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(buf, 11, 2, 3), "beyond the buffer");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(buf, 11, 1, Integer.MAX_VALUE),
                "overflowing span");
        assertEquals(OptionSet.builder().ifNoneMatch(true).build(), OptionSet.wrapWire(buf, 5, 4, 0));
    }
}
