package io.stagecoach.bench.echo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EchoServerTest {

    private static Message roundTrip(Message request) throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             DatagramChannel client = DatagramChannel.open()) {
            client.connect(echo.address());
            client.write(ByteBuffer.wrap(new UdpMessageSerializer().serialize(request)));
            ByteBuffer in = ByteBuffer.allocate(1500);
            client.read(in);
            in.flip();
            byte[] bytes = new byte[in.remaining()];
            in.get(bytes);
            return new UdpMessageParser().parse(bytes);
        } finally {
            ThreadLeakCheck.assertNoStagecoachThreads();
        }
    }

    @Test
    void conGetGetsPiggybackedContentWithSameMidAndToken() throws Exception {
        Request get = Request.get().uri("coap://127.0.0.1/benchmark").type(Type.CON).mid(4711)
                .token(Token.fromHex("cafe0001")).build();
        Message r = roundTrip(get);
        assertEquals(Type.ACK, r.type());
        assertEquals(4711, r.mid());
        assertEquals(Token.fromHex("cafe0001"), r.token());
        assertEquals(Code.CONTENT, r.code());
        assertEquals("hello world", r.payloadString());
    }

    @Test
    void nonPostGetsNonChanged() throws Exception {
        Request post = Request.post().type(Type.NON).mid(9).token(Token.fromHex("01")).payload("x").build();
        Message r = roundTrip(post);
        assertEquals(Type.NON, r.type());
        assertEquals(Token.fromHex("01"), r.token());
        assertEquals(Code.CHANGED, r.code());
    }

    @Test
    void pingGetsReset() throws Exception {
        Message r = roundTrip(EmptyMessage.ping(77));
        assertEquals(Type.RST, r.type());
        assertEquals(77, r.mid());
    }

    @Test
    void garbageAndResponsesAreDropped() throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            ByteBuffer out = ByteBuffer.allocate(100);
            assertFalse(echo.answer(ByteBuffer.wrap(new byte[] {1, 2}), out), "2-byte datagram");
            assertFalse(echo.answer(ByteBuffer.wrap(new byte[] {(byte) 0x80, 1, 0, 0}), out), "version 2");
            assertFalse(echo.answer(ByteBuffer.wrap(new byte[] {0x60, 0x45, 0, 1}), out), "an ACK 2.05");
            assertFalse(echo.answer(ByteBuffer.wrap(new byte[] {0x48, 0x01, 0, 1, 1}), out), "TKL 8, 1 token byte");
            assertTrue(echo.answer(ByteBuffer.wrap(new byte[] {0x40, 0x01, 0, 1}), out), "CON GET, no token");
            byte[] got = new byte[out.remaining()];
            out.get(got);
            assertArrayEquals(new byte[] {0x60, 0x45, 0, 1}, java.util.Arrays.copyOf(got, 4));
        } finally {
            ThreadLeakCheck.assertNoStagecoachThreads();
        }
    }
}
