package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadTest {

    @Test
    void aPayloadCannotBeChangedThroughItsSourceItsCopiesOrItsMessages() {
        byte[] source = {1, 2, 3};
        Payload p = Payload.of(source);
        source[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.bytes(), "copied in");
        p.bytes()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.bytes(), "copied out");
        Response r = Response.builder(Code.CONTENT).payload(p).build();
        r.payload()[2] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, r.payload());
        assertArrayEquals(new byte[] {1, 2, 3}, p.bytes());
        assertEquals(Response.builder(Code.CONTENT).payload(new byte[] {1, 2, 3}).build(), r);
    }

    @Test
    void utf8RemembersItsText() {
        Payload p = Payload.utf8("héllo");
        assertArrayEquals("héllo".getBytes(StandardCharsets.UTF_8), p.bytes());
        assertEquals(6, p.length());
        assertTrue(p.isUtf8Of("héllo"));
        assertFalse(p.isUtf8Of("hello"));
        assertFalse(Payload.of(p.bytes()).isUtf8Of("héllo"), "binary content has no text");
        assertEquals(Payload.of(p.bytes()), p);
        assertEquals(0, Response.builder(Code.CONTENT).payload(Payload.EMPTY).build().payloadLength());
    }
}
