package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parser and serializer behaviour beyond the shared vectors. */
class UdpCodecTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000));

    private final UdpMessageParser parser = new UdpMessageParser();
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();

    @Test
    void builtMessagesRoundTrip() throws MessageFormatException {
        Request req = Request.put().type(Type.CON).mid(0xBEEF).token(Token.fromHex("0102030405060708"))
                .uri("coap://[2001:db8::1]/a/b?c=d").payload("{\"v\":1}").build();
        req = req.newBuilder().options(req.options().newBuilder().contentFormat(ContentFormat.JSON)
                .block1(BlockOption.of(5000, true, 6)).add(OptionNumber.valueOf(2000), new byte[300]).build()).build();
        Message back = parser.parse(serializer.serialize(req));
        assertEquals(req, back);
        assertInstanceOf(Request.class, back);

        Response res = Response.builder(Code.CONTENT).type(Type.ACK).mid(1).token(Token.fromHex("aa"))
                .payload("hello world").build();
        assertEquals("6145000" + "1aaff68656c6c6f20776f726c64", hex(serializer.serialize(res)));
        assertEquals(res, parser.parse(serializer.serialize(res)));
    }

    @Test
    void extendedLengthAtTheWireLimit() throws MessageFormatException {
        // delta 14 + 0xFFFF gives the largest number; length 65535 needs the 2-byte extension
        Request r = Request.post().type(Type.NON).mid(3)
                .options(OptionSet.builder().add(OptionNumber.valueOf(65535), new byte[65535]).build()).build();
        byte[] wire = serializer.serialize(r);
        assertEquals(4 + 1 + 2 + 2 + 65535, wire.length);
        assertEquals(r, parser.parse(wire));
    }

    @Test
    void parseAttachesPeerAndReceiveTimeAndHonoursOffset() throws MessageFormatException {
        byte[] wire = hex("624512340102c0ff68656c6c6f20776f726c64");
        byte[] buf = new byte[wire.length + 10];
        System.arraycopy(wire, 0, buf, 5, wire.length);
        Message m = parser.parse(buf, 5, wire.length, PEER, 123_456_789L);
        assertEquals(PEER, m.peer());
        assertEquals(123_456_789L, m.receiveNanos());
        assertEquals("hello world", m.payloadString());
        buf[5 + 10] = 'X'; // the parser copied; changing the buffer changes nothing
        assertEquals("hello world", m.payloadString());
    }

    @Test
    void parseSharedReadsOptionValuesFromTheDatagramAndCopiesTheRest() throws MessageFormatException {
        byte[] wire = hex("4401abcd" + "0a0b0c0d" + "b162" + "ff" + "6869"); // CON GET, Uri-Path "b", payload "hi"
        Message shared = parser.parseShared(wire, PEER, 42L);
        assertEquals(parser.parse(wire), shared);
        assertEquals(PEER, shared.peer());
        assertEquals(42L, shared.receiveNanos());
        assertEquals(List.of("b"), shared.options().uriPath());

        // The contract is that nobody modifies the array; this shows why: the options read it in place.
        wire[9] = 'c';
        wire[12] = 'X';
        wire[4] = 0;
        assertEquals(List.of("c"), shared.options().uriPath(), "option value read from the datagram");
        assertEquals("hi", shared.payloadString(), "payload copied");
        assertEquals(Token.fromHex("0a0b0c0d"), shared.token(), "token copied");
    }

    @Test
    void parseSharedReadsOneOptionWithExtendedDeltaAndLength() throws MessageFormatException {
        // one option only: the parser decodes it without an index; delta and length extensions of
        // 1 and 2 bytes (RFC 7252 §3.1) must land on the same number, offset and length as parse's
        OptionSet[] singles = {
            OptionSet.builder().add(OptionNumber.valueOf(1000), new byte[20]).build(),
            OptionSet.builder().proxyUri("coap://h/" + "p".repeat(291)).build(),
            OptionSet.builder().add(OptionNumber.valueOf(65535), new byte[] {1, 2, 3}).build(),
            OptionSet.builder().addUriQuery("q".repeat(12)).build(),
        };
        for (OptionSet options : singles) {
            byte[] wire = serializer.serialize(Request.post().type(Type.CON).mid(7).token(Token.fromHex("01"))
                    .options(options).payload("x").build());
            Message shared = parser.parseShared(wire, PEER, 0);
            assertEquals(parser.parse(wire), shared);
            assertEquals(options, shared.options());
            assertEquals(options.option(0), shared.options().option(0));
            assertEquals("x", shared.payloadString());
        }
    }

    @Test
    void parseLentCopiesWhatTheMessageKeepsSoTheBufferMayBeReused() throws MessageFormatException {
        // CON GET, Uri-Path "b", Uri-Path "" (empty), Uri-Query "q=1", payload "hi", at offset 3 of a larger buffer
        String wire = "4401abcd" + "0a0b0c0d" + "b162" + "00" + "43713d31" + "ff" + "6869";
        byte[] exact = hex(wire);
        byte[] buffer = hex("eeeeee" + wire + "eeee");
        Message lent = parser.parseLent(buffer, 3, exact.length, PEER, 42L);
        assertEquals(parser.parse(exact), lent);
        assertEquals(PEER, lent.peer());
        assertEquals(42L, lent.receiveNanos());

        Arrays.fill(buffer, (byte) 'X'); // the connector reads its next datagram into it
        assertEquals(List.of("b", ""), lent.options().uriPath(), "option values copied");
        assertEquals(List.of("q=1"), lent.options().uriQuery());
        assertEquals("hi", lent.payloadString());
        assertEquals(Token.fromHex("0a0b0c0d"), lent.token());
        assertEquals(parser.parse(exact), lent);
    }

    @Test
    void parseLentOfOneOptionCopiesItsValue() throws MessageFormatException {
        // CON GET, one Uri-Path "bench" (the packed single-option form), at offset 2 of a larger buffer
        String wire = "4101abcd" + "0a" + "b562656e6368";
        byte[] exact = hex(wire);
        byte[] buffer = hex("eeee" + wire + "ee");
        Message lent = parser.parseLent(buffer, 2, exact.length, PEER, 0);
        Arrays.fill(buffer, (byte) 'X'); // the connector reads its next datagram into it
        assertEquals(List.of("bench"), lent.options().uriPath(), "the one value copied");
        assertEquals(parser.parse(exact), lent);
    }

    @Test
    void parseLentRefusesWhatParseRefuses() {
        byte[] truncated = hex("ee" + "4001abcd" + "b5626364");
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parseLent(truncated, 1, truncated.length - 1, PEER, 0));
        assertEquals("option 11 claims 5 bytes, only 3 follow", e.reason());
        assertEquals(0xabcd, e.mid());
    }

    @Test
    void parseSharedRefusesWhatParseRefuses() {
        byte[] truncated = hex("4001abcd" + "b5626364"); // Uri-Path claims 5 bytes, 3 follow
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parseShared(truncated, PEER, 0));
        assertEquals("option 11 claims 5 bytes, only 3 follow", e.reason());
        assertEquals(0xabcd, e.mid());
    }

    @Test
    void emptyMessagesParseAsEmptyMessage() throws MessageFormatException {
        Message m = parser.parse(hex("7000ffff"), PEER, 1);
        assertInstanceOf(EmptyMessage.class, m);
        assertSame(Type.RST, m.type());
        assertEquals(PEER, m.peer());
        assertArrayEquals(hex("60000001"), serializer.serialize(EmptyMessage.of(Type.ACK, 1)));
    }

    @Test
    void outOfRangeOptionValuesParseButAreInvalid() throws MessageFormatException {
        // CON GET, Uri-Host of 300 bytes (max 255), then Block2 with SZX 7
        StringBuilder hexWire = new StringBuilder("41010001aa" + "3e" + "001f");
        hexWire.append("61".repeat(300));
        hexWire.append("d1" + "07" + "07");
        Message m = parser.parse(hex(hexWire.toString()));

        List<Option> invalid = m.options().invalidOptions();
        assertEquals(2, invalid.size(), "sent Uri-Host of 300 bytes and Block2 SZX 7, got " + invalid);
        assertEquals(3, invalid.get(0).number());
        assertEquals(23, invalid.get(1).number());
        assertTrue(invalid.get(0).optionNumber().isCritical(), "critical: a CON request gets 4.02");
        assertNull(m.options().uriHost());
        assertEquals(hexWire.toString(), hex(serializer.serialize(m)), "kept byte for byte");
    }

    @Test
    void formatErrorAfterOptionsCarriesTokenAndCode() {
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parse(hex("42010007abcdb161ff")));
        assertTrue(e.optionsParsed());
        assertEquals(Token.fromHex("abcd"), e.token());
        assertSame(Code.GET, e.code());
        assertSame(Type.CON, e.type());
        assertEquals(7, e.mid());
    }

    @Test
    void formatErrorInOptionsHasNoOptionsParsed() {
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parse(hex("51010009abb5616263")));
        assertFalse(e.optionsParsed());
        assertEquals(Token.fromHex("ab"), e.token());
        assertSame(Type.NON, e.type());
        assertEquals(9, e.mid());
        assertTrue(e.reason().contains("option 11 claims 5 bytes, only 3 follow"), e.reason());
    }

    @Test
    void reservedCodeClassesAreRejected() {
        for (String code : new String[] {"21", "c1", "e0"}) {
            MessageFormatException e = assertThrows(MessageFormatException.class,
                    () -> parser.parse(hex("40" + code + "0102")), "code byte " + code);
            assertTrue(e.reason().contains("reserved class"), e.reason());
            assertEquals(0x0102, e.mid());
        }
    }

    @Test
    void versionZeroAndShortVersionTwoAreSilentDrops() {
        assertTrue(assertThrows(MessageFormatException.class, () -> parser.parse(hex("00011234"))).isSilentDrop());
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> parser.parse(hex("80")));
        assertTrue(e.isSilentDrop());
        assertEquals(-1, e.mid());
        MessageFormatException empty = assertThrows(MessageFormatException.class, () -> parser.parse(new byte[0]));
        assertFalse(empty.isSilentDrop());
        assertNull(empty.type());
    }

    @Test
    void badBufferRangeIsAFormatError() {
        assertThrows(MessageFormatException.class, () -> parser.parse(new byte[4], 2, 4, null, 0));
        assertThrows(MessageFormatException.class, () -> parser.parse(new byte[4], -1, 2, null, 0));
    }

    @Test
    void serializerRefusesUnsetTypeOrMidAndSmallBuffers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> serializer.serialize(Request.get().mid(1).build()));
        assertTrue(e.getMessage().startsWith("message type not set"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> serializer.serialize(Request.get().type(Type.CON).build()));
        assertTrue(e.getMessage().startsWith("message ID not set"), e.getMessage());
        Message ok = Request.get().type(Type.CON).mid(1).payload("abc").build();
        assertEquals(8, serializer.encodedLength(ok));
        assertThrows(IllegalArgumentException.class, () -> serializer.serialize(ok, new byte[7], 0));
        assertThrows(IllegalArgumentException.class, () -> serializer.serialize(ok, new byte[10], 3));
    }
}
