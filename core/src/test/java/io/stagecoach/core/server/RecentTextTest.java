package io.stagecoach.core.server;

import static io.stagecoach.core.server.Requests.exchange;
import static io.stagecoach.core.server.Requests.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Payload;
import io.stagecoach.core.coap.Response;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecentTextTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aTextSeenTwiceInARowIsKeptEncoded() {
        RecentText recent = new RecentText();
        String hello = "hello wörld";
        Payload first = recent.encode(hello);
        Payload second = recent.encode(hello);
        assertNotSame(first, second, "kept only from the second sighting");
        assertSame(second, recent.encode(hello));
        assertSame(second, recent.encode(new String(hello)), "an equal text hits too");
        assertArrayEquals(utf8(hello), recent.encode(hello).bytes());
    }

    @Test
    void aTextThatChangesEveryTimeIsNeverKeptAndAlwaysRight() {
        RecentText recent = new RecentText();
        for (int i = 0; i < 5; i++) {
            String t = "t=" + i;
            assertArrayEquals(utf8(t), recent.encode(t).bytes());
        }
        recent.encode("fixed");
        recent.encode("fixed");
        assertArrayEquals(utf8("other"), recent.encode("other").bytes(), "a kept text does not answer another");
        assertArrayEquals(utf8("fixed"), recent.encode("fixed").bytes());
    }

    /** Responses share the kept body, yet no response or caller can change what another sends. */
    @Test
    void respondWithTheSameTextSharesAnImmutableBody() {
        FakeResponder responder = new FakeResponder();
        CoapResource resource = CoapResource.named("r");
        for (int i = 0; i < 3; i++) {
            new CoapExchange(exchange(request(Code.GET, "/r").build()), resource, responder)
                    .respond(Code.CONTENT, "hello world");
        }
        responder.nextResponse();
        Response second = responder.nextResponse();
        byte[] leaked = second.payload();
        leaked[0] = 'J';
        Response third = responder.nextResponse();
        assertEquals("hello world", third.payloadString());
        assertEquals("hello world", second.payloadString());
        assertEquals(0, third.options().contentFormat());
    }
}
