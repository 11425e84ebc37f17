package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Token, ContentFormat and Type: the small value classes. */
class ValuesTest {

    @Test
    void tokenIsAnImmutableCopy() {
        byte[] src = {1, 2, 3};
        Token t = Token.of(src);
        src[0] = 9;
        assertEquals("010203", t.toHex());
        byte[] out = t.bytes();
        out[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, t.bytes());
        assertEquals(Token.fromHex("010203"), t);
        assertEquals(Token.fromHex("010203").hashCode(), t.hashCode());
        assertNotEquals(Token.fromHex("0102"), t);
        assertSame(Token.EMPTY, Token.fromHex(""));
        assertEquals("0000000000000102", Token.ofLong(258).toHex());
    }

    @Test
    void tokenBytesSurviveTheLongPackingForEveryLength() {
        byte[] all = {(byte) 0xFF, 0x00, (byte) 0x80, 0x7F, 0x01, (byte) 0xFE, 0x00, (byte) 0xAA};
        for (int len = 0; len <= 8; len++) {
            byte[] b = java.util.Arrays.copyOf(all, len);
            Token t = Token.of(b);
            assertArrayEquals(b, t.bytes(), "bytes of a " + len + "-byte token");
            assertEquals(Token.of(b.clone()).hashCode(), t.hashCode(), "equal tokens, equal hashes (" + len + " bytes)");
            assertEquals(0, Token.of(b.clone()).compareTo(t), "equal tokens compare equal");
            byte[] dst = new byte[10];
            t.copyTo(dst, 1);
            assertArrayEquals(b, java.util.Arrays.copyOfRange(dst, 1, 1 + len), "copyTo of a " + len + "-byte token");
        }
        assertNotEquals(Token.fromHex("00"), Token.fromHex("0000"), "leading zero bytes count");
        assertTrue(Token.fromHex("00").compareTo(Token.fromHex("0000")) < 0, "shorter first");
        assertTrue(Token.fromHex("01ff").compareTo(Token.fromHex("8000")) < 0, "then unsigned by value");
        assertNotEquals(Token.fromHex("00"), Token.EMPTY);
        assertEquals(Token.fromHex("0000000000000102"), Token.ofLong(258));
        assertEquals("ff00", Token.of(new byte[] {9, (byte) 0xFF, 0, 9}, 1, 2).toHex(), "slice of a buffer");
        assertThrows(IndexOutOfBoundsException.class, () -> Token.of(new byte[2], 1, 2), "slice beyond the buffer");
    }

    @Test
    void tokenLongerThanEightBytesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Token.of(new byte[9]));
        assertEquals("token length must be 0..8 bytes, got 9", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Token.fromHex("0g"));
    }

    @Test
    void contentFormatByNumberNameAndAlias() {
        assertSame(ContentFormat.JSON, ContentFormat.valueOf(50));
        assertSame(ContentFormat.JSON, ContentFormat.parse("json"));
        assertSame(ContentFormat.JSON, ContentFormat.parse("application/json"));
        assertSame(ContentFormat.LINK_FORMAT, ContentFormat.parse("link"));
        assertSame(ContentFormat.TEXT_PLAIN, ContentFormat.parse("text"));
        assertSame(ContentFormat.OCTET_STREAM, ContentFormat.parse("42"));
        assertEquals("application/vnd.oma.lwm2m+tlv", ContentFormat.valueOf(11542).mediaType());
        ContentFormat unknown = ContentFormat.parse("65000");
        assertNull(unknown.mediaType());
        assertEquals("65000", unknown.toString());
        assertThrows(IllegalArgumentException.class, () -> ContentFormat.parse("image/gif"));
        assertThrows(IllegalArgumentException.class, () -> ContentFormat.valueOf(70000));
    }

    @Test
    void typeWireValues() {
        assertSame(Type.ACK, Type.valueOf(2));
        assertEquals(3, Type.RST.wire());
        assertThrows(IllegalArgumentException.class, () -> Type.valueOf(4));
    }
}
