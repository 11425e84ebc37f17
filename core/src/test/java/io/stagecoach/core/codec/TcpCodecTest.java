package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** TCP/WebSocket parser and serializer behaviour beyond the shared vectors. */
class TcpCodecTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000));

    private final TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, 1152);
    private final TcpMessageSerializer tcp = new TcpMessageSerializer(ReliableFraming.TCP);
    private final TcpMessageSerializer ws = new TcpMessageSerializer(ReliableFraming.WEBSOCKET);

    @Test
    void typeAndMidAreNotOnTheWireAndComeBackUnset() throws MessageFormatException {
        Request forUdp = Request.get().type(Type.CON).mid(0xBEEF).token(Token.fromHex("71"))
                .uri("coap://example.org/temperature").build();
        Request unset = forUdp.withTypeAndMid(null, -1);
        assertEquals(hex(tcp.serialize(unset)), hex(tcp.serialize(forUdp)), "type and MID are not written");

        Message back = parser.parseMessage(tcp.serialize(forUdp), 0, tcp.encodedLength(forUdp), PEER, 42);
        assertInstanceOf(Request.class, back);
        assertNull(back.type());
        assertEquals(-1, back.mid());
        assertEquals(unset, back);
        assertSame(PEER, back.peer());
        assertEquals(42, back.receiveNanos());
        // the UDP serializer refuses what has no type, rather than invent one
        assertThrows(IllegalArgumentException.class, () -> new UdpMessageSerializer().serialize(back));
    }

    @Test
    void rfcFigure5AndEmptyMessages() throws MessageFormatException {
        // RFC 8323 §3.2, Figure 5: 2.03 with token 7f
        Response valid = Response.builder(Code.VALID).token(Token.fromHex("7f")).build();
        assertEquals("01437f", hex(tcp.serialize(valid)));
        assertEquals(valid, parser.parseMessage(hex("01437f")));
        // an Empty message is two bytes and parses with nothing set (RFC 8323 §3.4)
        assertEquals("0000", hex(tcp.serialize(EmptyMessage.of(null, -1))));
        Message empty = parser.parseMessage(hex("0000"));
        assertInstanceOf(EmptyMessage.class, empty);
        assertNull(empty.type());
    }

    @Test
    void webSocketFramesHaveLenZeroWhateverTheSize() throws MessageFormatException {
        Response big = Response.builder(Code.CONTENT).token(Token.fromHex("01")).payload(new byte[70000]).build();
        byte[] frame = ws.serialize(big);
        assertEquals(0x01, frame[0], "Len 0, TKL 1");
        assertEquals(2 + 1 + 1 + 70000, frame.length);
        assertEquals(big, new TcpMessageParser(ReliableFraming.WEBSOCKET, 1 << 17).parseMessage(frame));
        byte[] tcpFrame = tcp.serialize(big);
        assertEquals(0xF1, tcpFrame[0] & 0xFF, "Len 15 over TCP");
        assertEquals(1 + 4 + 1 + 1 + 70001, tcpFrame.length);
    }

    @Test
    void sharedParseReadsOptionsFromTheFrame() throws MessageFormatException {
        Request r = Request.post().token(Token.fromHex("0102")).uri("coap://h/a/b").payload("x").build();
        byte[] frame = tcp.serialize(r);
        Message shared = parser.parseMessageShared(frame, PEER, 7);
        assertEquals(r, shared);
        assertEquals("a/b", shared.options().uriPathString());
    }

    @Test
    void serializingIntoABufferChecksRoom() {
        Response r = Response.builder(Code.CONTENT).payload("hello").build();
        int len = tcp.encodedLength(r);
        assertThrows(IllegalArgumentException.class, () -> tcp.serialize(r, new byte[len], 1));
        assertThrows(IllegalArgumentException.class, () -> tcp.serialize(r, new byte[len], -1));
        assertEquals(len, tcp.serialize(r, new byte[len + 1], 1));
    }

    @Test
    void isSignalingReadsTheCodeBehindTheLengthField() {
        assertTrue(parser.isSignaling(hex("00e1")));
        assertTrue(parser.isSignaling(hex("d000e1")), "the code after one extended length byte");
        assertFalse(parser.isSignaling(hex("d0e1")), "no code yet");
        assertFalse(parser.isSignaling(hex("")));
        assertFalse(parser.isSignaling(hex("0045")));
        TcpMessageParser wsParser = new TcpMessageParser(ReliableFraming.WEBSOCKET, 1152);
        assertTrue(wsParser.isSignaling(hex("00e5")));
        assertFalse(wsParser.isSignaling(hex("d000e1")));
        assertThrows(IllegalArgumentException.class, () -> new TcpMessageParser(ReliableFraming.TCP, 1));
    }
}
