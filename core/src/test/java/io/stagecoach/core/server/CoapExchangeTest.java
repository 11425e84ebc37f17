package io.stagecoach.core.server;

import static io.stagecoach.core.server.Requests.PEER;
import static io.stagecoach.core.server.Requests.TOKEN;
import static io.stagecoach.core.server.Requests.exchange;
import static io.stagecoach.core.server.Requests.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CoapExchangeTest {

    private final FakeResponder responder = new FakeResponder();

    private CoapExchange cx(Request request) {
        return new CoapExchange(exchange(request), CoapResource.named("r"), responder);
    }

    private CoapExchange cx() {
        return cx(request(Code.GET, "/r").build());
    }

    @Test
    void queryParametersSplitAtTheFirstEquals() {
        Request.Builder b = request(Code.GET, "/r");
        b.options().uriQuery(List.of("a=1", "flag", "b=x=y", "a=2", "e="));
        CoapExchange ex = cx(b.build());
        assertEquals(Map.of("a", "1", "flag", "", "b", "x=y", "e", ""), ex.queryParameters());
        assertEquals(List.of("a", "flag", "b", "e"), List.copyOf(ex.queryParameters().keySet()), "request order");
        assertEquals("1", ex.query("a"), "first of a repeated key");
        assertEquals("", ex.query("flag"));
        assertNull(ex.query("missing"));
        assertEquals(Map.of(), cx().queryParameters());
    }

    @Test
    void requestAccessors() {
        Request.Builder b = request(Code.POST, "/r").payload("héllo");
        b.options().contentFormat(ContentFormat.TEXT_PLAIN).accept(50);
        CoapExchange ex = cx(b.build());
        assertEquals(Code.POST, ex.method());
        assertEquals("héllo", ex.payloadText());
        assertArrayEquals("héllo".getBytes(StandardCharsets.UTF_8), ex.payload());
        assertEquals(ContentFormat.TEXT_PLAIN, ex.requestContentFormat());
        assertEquals(ContentFormat.JSON, ex.acceptFormat());
        assertEquals(PEER, ex.sourceAddress());
        assertEquals(List.of("r"), ex.options().uriPath());
        assertNull(cx().acceptFormat(), "no Accept");
    }

    @Test
    void respondVariantsSetCodePayloadAndFormat() {
        cx().respond(Code.DELETED);
        Response r = responder.nextResponse();
        assertEquals(Code.DELETED, r.code());
        assertEquals(0, r.payloadLength());
        assertEquals(-1, r.options().contentFormat(), "no payload, no Content-Format");

        cx().respond(Code.BAD_REQUEST, "missing Content-Format");
        r = responder.nextResponse();
        assertEquals(Code.BAD_REQUEST, r.code());
        assertEquals("missing Content-Format", r.payloadString());
        assertEquals(0, r.options().contentFormat());

        cx().respond(Code.CONTENT, new byte[] {(byte) 0xA0}, ContentFormat.CBOR);
        r = responder.nextResponse();
        assertEquals(60, r.options().contentFormat());
        assertArrayEquals(new byte[] {(byte) 0xA0}, r.payload());
        assertEquals(TOKEN, r.token());
    }

    @Test
    void responseSpecSetsLocationEtagAndMaxAge() {
        cx().respond(Code.CREATED, s -> s.locationPath("large-create", "7").locationQuery("first=1", "second=2"));
        Response r = responder.nextResponse();
        assertEquals(Code.CREATED, r.code());
        assertEquals(List.of("large-create", "7"), r.options().locationPath());
        assertEquals(List.of("first=1", "second=2"), r.options().locationQuery());

        cx().respond(Code.CONTENT, s -> s.payload("{}".getBytes(StandardCharsets.UTF_8), ContentFormat.JSON)
                .etag(new byte[] {1, 2}).maxAge(30));
        r = responder.nextResponse();
        assertEquals(50, r.options().contentFormat());
        assertArrayEquals(new byte[] {1, 2}, r.options().etags().get(0));
        assertEquals(30, r.options().maxAge());
    }

    @Test
    void badLocationIsRefusedAndLeavesTheExchangeOpen() {
        CoapExchange ex = cx();
        assertThrows(IllegalArgumentException.class, () -> ex.respond(Code.CREATED, s -> s.locationPath("a/b")));
        assertThrows(IllegalArgumentException.class, () -> ex.respond(Code.CREATED, s -> s.locationQuery("a&b")));
        assertFalse(ex.isAnswered(), "nothing sent, a later answer is still possible");
        ex.respond(Code.CHANGED);
        assertEquals(Code.CHANGED, responder.nextResponse().code());
    }

    @Test
    void givenResponseGetsTheRequestsTokenAndPeer() {
        cx().respond(Response.builder(Code.VALID).token(Token.fromHex("01")));
        Response r = responder.nextResponse();
        assertEquals(Code.VALID, r.code());
        assertEquals(TOKEN, r.token(), "request token wins");
        assertEquals(PEER, r.peer().peer());

        cx().respond(Response.builder(Code.CHANGED).build());
        assertEquals(TOKEN, responder.nextResponse().token());
    }

    @Test
    void respondingTwiceIsAnIllegalState() {
        CoapExchange ex = cx();
        ex.respond("one");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ex.respond("two"));
        assertTrue(e.getMessage().contains("already answered"), e.getMessage());
        assertThrows(IllegalStateException.class, ex::reject);
        assertThrows(IllegalStateException.class, ex::accept);
        assertEquals(1, responder.all().size(), "only the first answer was sent: " + responder.all());
    }

    @Test
    void acceptThenSeparateResponse() {
        CoapExchange ex = cx();
        ex.accept();
        assertTrue(ex.isAccepted());
        assertEquals(FakeResponder.Kind.ACCEPT, responder.next().kind(), "empty ACK first");
        assertThrows(IllegalStateException.class, ex::accept, "second accept");
        assertThrows(IllegalStateException.class, ex::reject, "RST after ACK");
        ex.respond("later");
        assertEquals("later", responder.nextResponse().payloadString());
        assertTrue(ex.isAnswered());
    }

    @Test
    void rejectSendsRstAndEndsTheExchange() {
        CoapExchange ex = cx();
        ex.reject();
        assertEquals(FakeResponder.Kind.REJECT, responder.next().kind());
        assertThrows(IllegalStateException.class, () -> ex.respond(Code.CONTENT));
    }

    @Test
    void observeSequenceAndNotificationFlagSurviveEveryStep() {
        // the answer's progress, the notification flag and the Observe value share one int
        for (int seq : new int[] {0, 1, 0x7F_FFFF, 0xFF_FFFF}) {
            CoapExchange registration = new CoapExchange(exchange(request(Code.GET, "/r").build()),
                    CoapResource.named("r"), responder, seq, false);
            assertFalse(registration.isNotification());
            registration.accept();
            assertTrue(registration.isAccepted());
            assertEquals(FakeResponder.Kind.ACCEPT, responder.next().kind());
            registration.respond("v");
            assertTrue(registration.isAnswered());
            assertEquals(seq, responder.nextResponse().options().observe(), "Observe of seq " + seq);

            CoapExchange notification = new CoapExchange(exchange(request(Code.GET, "/r").build()),
                    CoapResource.named("r"), responder, seq, true);
            assertTrue(notification.isNotification());
            notification.accept(); // no empty ACK for a notification
            assertTrue(notification.isAccepted());
            assertTrue(notification.isNotification());
            notification.respond(Code.CONTENT);
            assertTrue(responder.all().stream().filter(c -> c.exchange() == notification.exchange())
                    .noneMatch(c -> c.kind() == FakeResponder.Kind.ACCEPT), "no empty ACK for a notification");
            assertTrue(notification.isAnswered());
            assertTrue(notification.isNotification());
            assertEquals(seq, responder.nextResponse().options().observe());
        }
        CoapExchange plain = cx();
        plain.respond("no observe");
        assertEquals(-1, responder.nextResponse().options().observe());
        assertThrows(IllegalArgumentException.class, () -> new CoapExchange(exchange(request(Code.GET, "/r").build()),
                CoapResource.named("r"), responder, 0x100_0000, false), "beyond 24 bits (RFC 7641 §3.4)");
        assertThrows(IllegalArgumentException.class, () -> new CoapExchange(exchange(request(Code.GET, "/r").build()),
                CoapResource.named("r"), responder, -2, false));
    }
}
