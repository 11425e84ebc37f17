package io.stagecoach.core.coap;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionSetTest {

    @Test
    void optionsAreSortedByNumberAndRepeatsKeepTheirOrder() {
        OptionSet set = OptionSet.builder()
                .addUriQuery("b=2").contentFormat(ContentFormat.JSON).addUriPath("x").addUriQuery("a=1").addUriPath("y")
                .uriHost("example.com").build();
        List<String> order = new ArrayList<>();
        for (Option o : set) {
            order.add(o.toString());
        }
        assertEquals(List.of("Uri-Host=\"example.com\"", "Uri-Path=\"x\"", "Uri-Path=\"y\"",
                "Content-Format=50", "Uri-Query=\"b=2\"", "Uri-Query=\"a=1\""), order);
    }

    @Test
    void typedGettersReadWhatTheSettersWrote() {
        OptionSet set = OptionSet.builder()
                .uriHost("h").uriPort(61616).uriPath("/a/b").uriQuery(List.of("q")).accept(60)
                .locationPath(List.of("new", "1")).locationQuery(List.of("x=y")).contentFormat(ContentFormat.CBOR)
                .addEtag(new byte[] {1}).addEtag(new byte[] {2, 3}).addIfMatch(new byte[0]).ifNoneMatch(true)
                .observe(0x123456).maxAge(3600).block1(BlockOption.of(17, true, 6)).block2(BlockOption.of(0, false, 2))
                .size1(5000).size2(0).proxyUri("coap://p/x").proxyScheme("http").noResponse(26)
                .echo(new byte[] {9, 9}).addRequestTag(new byte[] {7}).hopLimit(16).oscore(new byte[0]).build();

        assertEquals("h", set.uriHost());
        assertEquals(61616, set.uriPort());
        assertEquals(List.of("a", "b"), set.uriPath());
        assertEquals("a/b", set.uriPathString());
        assertEquals(List.of("q"), set.uriQuery());
        assertEquals(60, set.accept());
        assertEquals(List.of("new", "1"), set.locationPath());
        assertEquals(List.of("x=y"), set.locationQuery());
        assertEquals(60, set.contentFormat());
        assertEquals(2, set.etags().size());
        assertArrayEquals(new byte[] {2, 3}, set.etags().get(1));
        assertEquals(1, set.ifMatch().size());
        assertTrue(set.ifNoneMatch());
        assertEquals(0x123456, set.observe());
        assertEquals(3600, set.maxAge());
        assertEquals(BlockOption.of(17, true, 6), set.block1());
        assertEquals(BlockOption.of(0, false, 2), set.block2());
        assertEquals(5000, set.size1());
        assertEquals(0, set.size2());
        assertEquals("coap://p/x", set.proxyUri());
        assertEquals("http", set.proxyScheme());
        assertEquals(26, set.noResponse());
        assertArrayEquals(new byte[] {9, 9}, set.echo());
        assertEquals(1, set.requestTags().size());
        assertEquals(16, set.hopLimit());
        assertArrayEquals(new byte[0], set.oscore());
        assertTrue(set.invalidOptions().isEmpty());
    }

    @Test
    void absentValues() {
        OptionSet set = OptionSet.EMPTY;
        assertEquals(-1, set.contentFormat());
        assertEquals(-1, set.maxAge(), "raw Max-Age is absent");
        assertEquals(60, set.effectiveMaxAge(), "RFC 7252 5.10.5 default");
        assertNull(set.uriHost());
        assertNull(set.block2());
        assertEquals(List.of(), set.uriPath());
        assertFalse(set.ifNoneMatch());
        assertEquals(-1, set.observe());
    }

    @Test
    void uintValuesUseTheShortestEncoding() {
        OptionSet set = OptionSet.builder().contentFormat(ContentFormat.TEXT_PLAIN).maxAge(256).build();
        assertEquals("", set.get(OptionNumber.CONTENT_FORMAT).get(0).hex(), "0 is zero bytes");
        assertEquals("0100", set.get(OptionNumber.MAX_AGE).get(0).hex());
    }

    @Test
    void validationNamesTheOptionAndTheBound() {
        OptionSet.Builder b = OptionSet.builder();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.addUriPath("x".repeat(300)));
        assertEquals("Uri-Path value of 300 bytes exceeds the maximum length 255", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> b.uriHost(""));
        assertEquals("Uri-Host value of 0 bytes is shorter than the minimum length 1", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> b.uriPort(70000));
        assertEquals("Uri-Port value 70000 needs 3 bytes and exceeds the maximum length 2", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> b.addEtag(new byte[9]));
        assertEquals("ETag value of 9 bytes exceeds the maximum length 8", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> b.echo(new byte[41]));
        assertEquals("Echo value of 41 bytes exceeds the maximum length 40", e.getMessage());

        b.contentFormat(ContentFormat.TEXT_PLAIN);
        e = assertThrows(IllegalArgumentException.class, () -> b.add(OptionNumber.CONTENT_FORMAT, new byte[] {1}));
        assertEquals("Content-Format is not repeatable and is already set", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.maxAge(-1));
        assertThrows(IllegalArgumentException.class, () -> b.hopLimit(0));
    }

    @Test
    void setReplacesAndRemoveDeletes() {
        OptionSet set = OptionSet.builder().contentFormat(ContentFormat.TEXT_PLAIN).contentFormat(ContentFormat.JSON).uriPath("a/b").uriPath("c")
                .uriHost("h").uriHost(null).build();
        assertEquals(50, set.contentFormat());
        assertEquals(List.of("c"), set.uriPath());
        assertFalse(set.has(OptionNumber.URI_HOST));
        assertEquals(set, set.newBuilder().build(), "newBuilder copies");
        assertFalse(set.newBuilder().remove(OptionNumber.URI_PATH).build().has(11));
    }

    @Test
    void unknownOptionsAreKeptRepeatableAndOpaque() {
        OptionSet set = OptionSet.builder().add(OptionNumber.valueOf(65000), new byte[] {1})
                .add(OptionNumber.valueOf(65000), new byte[] {2}).build();
        assertEquals(2, set.get(65000).size());
        assertTrue(set.invalidOptions().isEmpty());
    }

    @Test
    void wireOptionsOutsideTheirDefinitionAreKeptButInvalid() {
        byte[] wire = new byte[300 + 1 + 2 + 1];
        int[] index = {
            3, 0, 300, // Uri-Host of 300 bytes: longer than 255
            12, 300, 1, // Content-Format
            12, 301, 1, // supernumerary Content-Format
            23, 302, 1, // Block2 with SZX 7
        };
        wire[300] = 50;
        wire[301] = 60;
        wire[302] = 0x07;
        OptionSet set = OptionSet.fromWire(wire, index, 4);

        assertEquals(4, set.size(), "all options are kept for re-encoding");
        List<Integer> invalid = new ArrayList<>();
        set.invalidOptions().forEach(o -> invalid.add(o.number()));
        assertEquals(List.of(3, 12, 23), invalid);
        assertNull(set.uriHost(), "an invalid option reads as absent (RFC 7252 5.4.3)");
        assertEquals(50, set.contentFormat(), "the first occurrence counts (RFC 7252 5.4.5)");
        assertNull(set.block2());
        assertTrue(set.has(OptionNumber.BLOCK2));
        assertFalse(set.get(OptionNumber.BLOCK2).get(0).isValid());
        assertEquals("07", hex(set.get(OptionNumber.BLOCK2).get(0).value()));
    }

    @Test
    void fromWireRefusesUnsortedIndex() {
        assertThrows(IllegalArgumentException.class,
                () -> OptionSet.fromWire(new byte[2], new int[] {11, 0, 1, 3, 1, 1}, 2));
        assertThrows(IllegalArgumentException.class,
                () -> OptionSet.fromWire(new byte[2], new int[] {11, 1, 5}, 1));
    }

    @Test
    void positionalValueChecksMatchTheCopyingOnes() {
        byte[] wire = new byte[300 + 1 + 1 + 3];
        int[] index = {
            3, 0, 300, // Uri-Host of 300 bytes: longer than 255
            11, 302, 3, // Uri-Path "abc"
            12, 300, 1, // Content-Format
            12, 301, 1, // supernumerary Content-Format, value itself fine
        };
        wire[300] = 50;
        wire[301] = 60;
        wire[302] = 'a';
        wire[303] = 'b';
        wire[304] = 'c';
        OptionSet set = OptionSet.fromWire(wire, index, 4);

        for (int i = 0; i < set.size(); i++) {
            Option o = set.option(i);
            assertEquals(o.isValid(), set.isValidValue(i), "isValidValue of option " + i + " " + o);
            assertTrue(set.valueEquals(i, o.value()), "valueEquals of option " + i + " with its own value");
            assertEquals(java.util.Arrays.hashCode(o.value()), set.valueHashCode(i), "valueHashCode of option " + i);
        }
        assertFalse(set.isValidValue(0), "300-byte Uri-Host");
        assertTrue(set.isValidValue(3), "repetition is not a value problem");
        assertFalse(set.isValid(3), "but the supernumerary occurrence is invalid");
        assertFalse(set.valueEquals(1, "ab".getBytes(StandardCharsets.UTF_8)), "prefix");
        assertFalse(set.valueEquals(1, "abd".getBytes(StandardCharsets.UTF_8)), "same length, other byte");
        assertTrue(set.valueEquals(1, "abc".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void wrapWireKeepsTheArraysAndChecksLikeFromWire() {
        byte[] datagram = {9, 9, 'a', 'b', 50, 9};
        int[] index = {11, 2, 2, 12, 4, 1};
        OptionSet wrapped = OptionSet.wrapWire(datagram, index);
        assertEquals(OptionSet.fromWire(datagram, index, 2), wrapped);
        assertEquals(List.of("ab"), wrapped.uriPath());
        assertEquals(50, wrapped.contentFormat());
        datagram[2] = 'x'; // not allowed by the contract; shows the values are not copied
        assertEquals(List.of("xb"), wrapped.uriPath());

        assertSame(OptionSet.EMPTY, OptionSet.wrapWire(datagram, new int[0]));
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(datagram, new int[] {11, 0}),
                "not triples");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(datagram, new int[] {12, 0, 1, 11, 1, 1}),
                "numbers not ascending");
        assertThrows(IllegalArgumentException.class, () -> OptionSet.wrapWire(datagram, new int[] {11, 5, 2}),
                "span beyond the datagram");
    }

    @Test
    void fromWireWithOnlyEmptyValuesReadsAsTheBuiltSet() {
        // Content-Format 0 and If-None-Match: both zero-length values (RFC 7252 3.2)
        OptionSet set = OptionSet.fromWire(new byte[] {1, 2}, new int[] {5, 1, 0, 12, 2, 0}, 2);
        assertEquals(OptionSet.builder().ifNoneMatch(true).contentFormat(ContentFormat.TEXT_PLAIN).build(), set);
        assertEquals(0, set.contentFormat());
        assertTrue(set.ifNoneMatch());
        assertEquals(0, set.valueLength(1));
    }
}
