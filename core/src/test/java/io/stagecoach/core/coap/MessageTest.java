package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("127.0.0.1", 5683));

    @Test
    void requestBuilderDefaultsLeaveTypeAndMidToTheStack() {
        Request r = Request.get().build();
        assertNull(r.type());
        assertEquals(-1, r.mid());
        assertSame(Token.EMPTY, r.token());
        assertEquals(0, r.payloadLength());
        assertSame(Code.GET, r.method());
    }

    @Test
    void requestNeedsAMethodCodeAndResponseAResponseCode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Request.builder(Code.CONTENT));
        assertTrue(e.getMessage().contains("2.05 Content"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Request.builder(Code.EMPTY));
        assertThrows(IllegalArgumentException.class, () -> Response.builder(Code.GET));
        assertThrows(IllegalArgumentException.class, () -> Response.builder(Code.of(6, 0)));
        assertEquals(Code.of(3, 1), Response.builder(Code.of(3, 1)).build().code(), "unnamed class 3 kept");
        assertThrows(IllegalArgumentException.class, () -> Request.get().mid(65536));
    }

    @Test
    void withMethodsCopyAndShareTheRest() {
        Request r = Request.post().token(Token.fromHex("aa")).payload("hi").options(
                OptionSet.builder().uriPath("x").build()).build();
        Request r2 = r.withMid(7).withType(Type.CON).withPeer(PEER).withToken(Token.fromHex("bb"));

        assertEquals(7, r2.mid());
        assertEquals(Type.CON, r2.type());
        assertEquals(PEER, r2.peer());
        assertEquals("bb", r2.token().toHex());
        assertEquals("hi", r2.payloadString());
        assertEquals(List.of("x"), r2.options().uriPath());
        assertEquals(-1, r.mid(), "the original is unchanged");
        assertNull(r.peer());
    }

    @Test
    void equalsComparesWireDataNotMetadata() {
        Response a = Response.builder(Code.CONTENT).type(Type.ACK).mid(1).payload("x").build();
        Response b = a.newBuilder().peer(PEER).receiveNanos(42).build();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(42, b.receiveNanos());
        assertNotEquals(a, a.withMid(2));
        assertNotEquals(a, a.newBuilder().payload("y").build());
    }

    @Test
    void payloadIsCopiedInAndOut() {
        byte[] p = {1, 2};
        Request r = Request.put().payload(p).build();
        p[0] = 9;
        byte[] out = r.payload();
        out[1] = 9;
        assertEquals(1, r.payload()[0]);
        assertEquals(2, r.payload()[1]);
    }

    @Test
    void optionsCanBeSetThroughTheMessageBuilder() {
        Request.Builder b = Request.get();
        b.options().uriPath("a/b").accept(50);
        Request r = b.build();
        assertEquals(List.of("a", "b"), r.options().uriPath());
        assertEquals(50, r.options().accept());
        Request r2 = r.newBuilder().code(Code.FETCH).build();
        assertEquals(r.options(), r2.options());
        assertSame(Code.FETCH, r2.code());
    }

    @Test
    void responseForRequestTakesTokenAndPeer() {
        Request req = Request.get().token(Token.fromHex("0102")).peer(PEER).build();
        Response res = Response.forRequest(req, Code.CONTENT).build();
        assertEquals(req.token(), res.token());
        assertEquals(PEER, res.peer());
        assertNull(res.type(), "piggybacked or separate is the stack's choice");
    }

    @Test
    void emptyMessagesHaveNoTokenOptionsOrPayload() {
        Request con = Request.get().type(Type.CON).mid(77).peer(PEER).build();
        EmptyMessage ack = EmptyMessage.ackFor(con);
        assertEquals(Type.ACK, ack.type());
        assertEquals(77, ack.mid());
        assertEquals(PEER, ack.peer());
        assertSame(Code.EMPTY, ack.code());
        assertEquals(Type.RST, EmptyMessage.rstFor(con).type());
        assertEquals(Type.CON, EmptyMessage.ping(5).type());
        assertThrows(IllegalArgumentException.class, () -> ack.withToken(Token.fromHex("01")));
        assertEquals(EmptyMessage.of(Type.ACK, 77), ack, "peer is metadata");
        assertNotEquals(EmptyMessage.of(Type.RST, 77), ack);
    }

    @Test
    void toStringShowsTheEssentials() {
        Request r = Request.get().type(Type.CON).mid(4660).token(Token.fromHex("0102")).uri("coap://127.0.0.1/x").build();
        assertEquals("CON 0.01 GET mid=4660 token=0102 [Uri-Path=\"x\"] peer=/127.0.0.1:5683", r.toString());
    }

    @Test
    void withTypeAndMidIsWithTypeThenWithMidInOneCopy() {
        Response r = Response.builder(Code.CONTENT).token(Token.fromHex("0a")).payload("x").peer(PEER).build();
        Response both = r.withTypeAndMid(Type.ACK, 77);
        assertEquals(r.withType(Type.ACK).withMid(77), both);
        assertEquals(Type.ACK, both.type());
        assertEquals(77, both.mid());
        assertSame(PEER, both.peer(), "metadata kept");
        assertNull(r.type(), "the original is unchanged");
        assertEquals(-1, r.mid());

        Request q = Request.get().build().withTypeAndMid(Type.NON, 5);
        assertEquals(Type.NON, q.type());
        assertEquals(5, q.mid());
        EmptyMessage e = EmptyMessage.of(Type.CON, 1).withTypeAndMid(Type.RST, 2);
        assertEquals(EmptyMessage.of(Type.RST, 2), e);
        assertThrows(IllegalArgumentException.class, () -> r.withTypeAndMid(Type.ACK, 65536), "MID range checked");
    }

    @Test
    void payloadRangeOfAnotherMessageCopiesJustThatRange() {
        byte[] body = new byte[3000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 7);
        }
        Response whole = Response.builder(Code.CONTENT).payload(body).build();
        Response block = whole.newBuilder().payload(whole, 2048, 952).build();
        assertEquals(952, block.payloadLength());
        byte[] got = block.payload();
        for (int i = 0; i < got.length; i++) {
            assertEquals(body[2048 + i], got[i], "byte " + i);
        }
        assertEquals(0, whole.newBuilder().payload(whole, 3000, 0).build().payloadLength());
        assertThrows(IndexOutOfBoundsException.class, () -> whole.newBuilder().payload(whole, 2048, 953));
        assertThrows(IndexOutOfBoundsException.class, () -> whole.newBuilder().payload(whole, -1, 10));
    }
}
