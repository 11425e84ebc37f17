package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Type, MID and token are packed into the message; every combination reads back as set. */
class MessageTokenTest {

    @Test
    void typeMidAndTokenReadBackForEveryTypeTheMidBoundsAndEveryTokenLength() {
        Type[] types = {null, Type.CON, Type.NON, Type.ACK, Type.RST};
        int[] mids = {-1, 0, 1, 0x7FFF, 0xFFFF};
        for (Type type : types) {
            for (int mid : mids) {
                for (int len = 0; len <= Token.MAX_LENGTH; len++) {
                    byte[] t = new byte[len];
                    for (int i = 0; i < len; i++) {
                        t[i] = (byte) (0xF0 | i);
                    }
                    Response r = Response.builder(Code.CONTENT).type(type).mid(mid).token(Token.of(t)).build();
                    String what = type + " " + mid + " " + len;
                    assertEquals(type, r.type(), what);
                    assertEquals(mid, r.mid(), what);
                    assertEquals(len, r.tokenLength(), what);
                    assertArrayEquals(t, r.token().bytes(), what);
                    byte[] out = new byte[len + 2];
                    r.copyTokenTo(out, 1);
                    assertArrayEquals(t, java.util.Arrays.copyOfRange(out, 1, len + 1), what);
                    assertEquals(r, r.newBuilder().build(), what);
                    assertEquals(r.hashCode(), r.newBuilder().build().hashCode(), what);
                }
            }
        }
    }

    @Test
    void copiesKeepOrReplaceTheTokenAndTheBuilderTakesTokenBytes() {
        byte[] wire = {9, 1, 2, 3, 9};
        Request r = Request.get().token(wire, 1, 3).mid(7).build();
        assertEquals(Token.fromHex("010203"), r.token());
        Request acked = r.withTypeAndMid(Type.ACK, 9);
        assertTrue(acked.sameToken(r));
        assertEquals(Type.ACK, acked.type());
        assertEquals(9, acked.mid());
        Request other = r.withToken(Token.fromHex("0102"));
        assertFalse(other.sameToken(r));
        assertNotEquals(r, other);
        assertEquals(Token.fromHex("0102"), other.token());
        assertTrue(Response.forRequest(r, Code.CONTENT).build().sameToken(r), "an answer carries the request's token");
        assertTrue(Response.builder(Code.CONTENT).tokenOf(r).build().sameToken(r));
        assertNull(r.withType(null).type());
        assertThrows(IllegalArgumentException.class, () -> Request.get().token(wire, 0, 9));
        assertThrows(IndexOutOfBoundsException.class, () -> Request.get().token(wire, 3, 3));
    }
}
