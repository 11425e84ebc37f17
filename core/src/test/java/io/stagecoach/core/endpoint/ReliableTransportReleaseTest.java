package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.InMemoryStreamConnector.Peer;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client's side of Release (RFC 8323 §5.5) in lockstep: the test plays the servers of an
 * in-memory client connector, time is a {@link VirtualClock}, everything runs on the test's thread.
 */
class ReliableTransportReleaseTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final InetSocketAddress SERVER = new InetSocketAddress(LOOPBACK, 40100);
    private static final InetSocketAddress ALTERNATIVE = new InetSocketAddress(LOOPBACK, 40101);

    private final VirtualClock clock = new VirtualClock();
    private final List<Object> outcomes = new ArrayList<>();
    private final Exchange.Listener listener = new Exchange.Listener() {
        @Override
        public void onResponse(Exchange exchange, Response response) {
            outcomes.add(response.payloadString());
        }

        @Override
        public void onFailure(Exchange exchange, Throwable cause) {
            outcomes.add(cause);
        }
    };
    private InMemoryStreamConnector connector;
    private CoapEndpoint client;

    private void start(boolean follow) throws Exception {
        Configuration config = CoapConfig.builder().set(TcpConfig.FOLLOW_ALTERNATIVE_ADDRESS, follow).build();
        connector = new InMemoryStreamConnector(false, true, clock);
        client = CoapEndpoint.builder().connector(connector).config(config).scheduler(clock).executor(Runnable::run)
                .random(new SplittableRandom(7)).build();
        client.start();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.destroy();
        }
    }

    private void get(InetSocketAddress to) {
        client.sendRequest(Request.get().peer(EndpointContext.of(to)).options(o -> o.uriPath(List.of("x"))).build(),
                listener);
    }

    /** The server's side of a new connection: our CSM first, then its own; returns our request. */
    private Message accept(Peer server) throws Exception {
        assertEquals(Code.CSM, server.nextSignal().code(), "the client's CSM comes first (RFC 8323 5.3.1)");
        server.write(SignalingMessage.csm(1152, false));
        return server.nextMessage();
    }

    private static Response answer(Message request, String payload) {
        return Response.builder(Code.CONTENT).token(request.token()).payload(payload).build();
    }

    /** Sends a GET to SERVER, answers it, then SERVER releases the idle connection with {@code release}. */
    private Peer releasedBy(SignalingMessage release) throws Exception {
        get(SERVER);
        Peer server = connector.peer(SERVER);
        assertNotNull(server, "the first send connects");
        server.write(answer(accept(server), "first"));
        assertEquals(List.of("first"), outcomes);
        outcomes.clear();
        server.write(release);
        assertTrue(server.closed, "no exchange left: the connection closes at once");
        return server;
    }

    @Test
    void newRequestsFollowTheAlternativeAddress() throws Exception {
        start(true);
        releasedBy(SignalingMessage.release(List.of("127.0.0.1:40101"), 30, "moving"));
        get(SERVER);
        assertNull(connector.peer(SERVER), "nothing goes to the released address");
        Peer alternative = connector.peer(ALTERNATIVE);
        assertNotNull(alternative, "the request opened a connection to the alternative");
        Message request = accept(alternative);
        assertEquals(List.of("x"), request.options().uriPath());
        alternative.write(answer(request, "second"));
        assertEquals(List.of("second"), outcomes, "the Hold-Off applies to the released address only");
        assertEquals(0, client.openExchanges());
    }

    @Test
    void theFirstAlternativeThatIsAnIpLiteralIsTaken() throws Exception {
        start(true);
        releasedBy(SignalingMessage.release(List.of("coap+tcp://a.example", "b.example:5683", "[::1]:40102",
                "127.0.0.1:40101"), -1, null));
        get(SERVER);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 40102);
        assertNotNull(connector.peer(v6), "URIs and host names are skipped; [::1]:40102 is the first literal");
        assertNull(connector.peer(ALTERNATIVE));
    }

    @Test
    void withoutAUsableAlternativeTheHoldOffKeepsRequestsBack() throws Exception {
        start(true);
        releasedBy(SignalingMessage.release(List.of("other.example"), 30, "maintenance"));
        get(SERVER);
        assertEquals(1, outcomes.size());
        assertTrue(outcomes.get(0) instanceof Throwable t && t.getMessage().contains("Hold-Off"),
                String.valueOf(outcomes));
        assertNull(connector.peer(SERVER), "no connection is attempted during the Hold-Off");
        outcomes.clear();
        clock.advance(Duration.ofSeconds(31));
        get(SERVER);
        Peer again = connector.peer(SERVER);
        assertNotNull(again, "after the Hold-Off the same address is used again");
        again.write(answer(accept(again), "back"));
        assertEquals(List.of("back"), outcomes);
    }

    @Test
    void aClientThatDoesNotFollowStaysWithTheReleasedAddress() throws Exception {
        start(false);
        releasedBy(SignalingMessage.release(List.of("127.0.0.1:40101"), -1, null));
        get(SERVER);
        assertNull(connector.peer(ALTERNATIVE));
        Peer again = connector.peer(SERVER);
        assertNotNull(again);
        again.write(answer(accept(again), "same"));
        assertEquals(List.of("same"), outcomes);
    }

    @Test
    void anExchangeOpenAtTheReleaseIsAnsweredOnTheOldConnection() throws Exception {
        start(true);
        get(SERVER);
        Peer server = connector.peer(SERVER);
        Message first = accept(server);
        server.write(SignalingMessage.release(List.of("127.0.0.1:40101"), -1, "moving"));
        assertFalse(server.closed, "an exchange is still open on it");
        get(SERVER);
        Peer alternative = connector.peer(ALTERNATIVE);
        assertNotNull(alternative, "a new request goes to the alternative at once");
        Message second = accept(alternative);
        server.write(answer(first, "old"));
        assertTrue(server.closed, "closed once its last exchange ended");
        alternative.write(answer(second, "new"));
        assertEquals(List.of("old", "new"), outcomes);
    }

    @Test
    void notificationsAreFreshWhateverTheirObserveValue() throws Exception {
        start(true);
        List<String> loads = new ArrayList<>();
        CoapClient coap = CoapClient.builder("coap+tcp://127.0.0.1:40100/obs").endpoint(client).build();
        coap.observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                loads.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) {
                loads.add("error " + error);
            }
        });
        Peer server = connector.peer(SERVER);
        Message registration = accept(server);
        assertEquals(0, registration.options().observe());
        for (String state : List.of("a", "b", "c")) {
            // RFC 8323 7.2: the value may be empty (0) in every notification and is ignored
            server.write(Response.builder(Code.CONTENT).token(registration.token()).options(o -> o.observe(0))
                    .payload(state).build());
        }
        assertEquals(List.of("a", "b", "c"), loads, "in order, none dropped as stale (RFC 7641 3.4 is for UDP)");
    }

    @Test
    void authoritiesAreParsedAsIpLiteralsOnly() throws Exception {
        assertEquals(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 5683),
                ReleaseRedirects.parse("192.0.2.1", 5683), "no port: the scheme's");
        assertEquals(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7),
                ReleaseRedirects.parse("192.0.2.1:7", 5683));
        assertEquals(new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 5684),
                ReleaseRedirects.parse("[2001:db8::1]", 5684));
        assertEquals(new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 9),
                ReleaseRedirects.parse("[2001:db8::1]:9", 5684));
        for (String bad : List.of("example.org", "example.org:5683", "coap+tcp://192.0.2.1", "user@192.0.2.1",
                "192.0.2.1:0", "192.0.2.1:65536", "192.0.2.1:x", "300.0.2.1", "[2001:db8::1", "[2001:db8::1]x",
                "[v1.x]", "[fe80::1%eth0]", "2001:db8::1", "")) {
            assertNull(ReleaseRedirects.parse(bad, 5683), bad);
        }
    }

    @Test
    void redirectsAreBoundedAndDoNotLoop() {
        ReleaseRedirects r = new ReleaseRedirects();
        InetSocketAddress a = new InetSocketAddress(LOOPBACK, 1);
        InetSocketAddress b = new InetSocketAddress(LOOPBACK, 2);
        assertEquals(b, r.follow(a, List.of("127.0.0.1:2"), 5683));
        assertEquals(a, r.follow(b, List.of("127.0.0.1:1"), 5683), "b released back to a");
        assertEquals(a, r.destination(a), "a is used again: its own redirect is gone, no loop");
        assertEquals(a, r.destination(b));
        assertNull(r.follow(a, List.of("127.0.0.1:1"), 5683), "an alternative equal to the released address");
        for (int i = 0; i < ReleaseRedirects.MAX_REDIRECTS + 10; i++) {
            r.follow(new InetSocketAddress(LOOPBACK, 10_000 + i % 50_000), List.of("127.0.0.1:3"), 5683);
        }
        InetSocketAddress late = new InetSocketAddress(InetAddress.getLoopbackAddress(), 65_000);
        assertNull(r.follow(late, List.of("127.0.0.1:4"), 5683), "beyond the bound a Release is not followed");
        assertEquals(late, r.destination(late));
    }
}
