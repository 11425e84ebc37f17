package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.InMemoryStreamConnector.Peer;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.time.VirtualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 8323 signaling and limits in lockstep: the test is the peer of an in-memory connection,
 * time is a {@link VirtualClock}, everything runs on the test's thread.
 */
class ReliableTransportLockstepTest {

    private static final int MAX = 4096;

    private final VirtualClock clock = new VirtualClock();
    private InMemoryStreamConnector connector;
    private CoapServer server;
    private CoapEndpoint endpoint;
    private final AtomicReference<CoapExchange> parked = new AtomicReference<>();
    private final CoapResource obs = new CoapResource("obs");
    private volatile int state;

    @BeforeEach
    void start() {
        start(false);
    }

    private void start(boolean webSocket) {
        if (server != null) {
            server.destroy();
        }
        Configuration config = CoapConfig.builder().set(TcpConfig.MAX_MESSAGE_SIZE, MAX)
                .set(TcpConfig.CSM_TIMEOUT, Duration.ofSeconds(10)).set(TcpConfig.FRAME_TIMEOUT, Duration.ofSeconds(5))
                .set(TcpConfig.IDLE_TIMEOUT, Duration.ofSeconds(60)).build();
        connector = new InMemoryStreamConnector(webSocket, clock);
        server = CoapServer.builder().connector(connector).config(config).scheduler(clock)
                .protocolExecutor(Runnable::run).build();
        server.add(CoapResource.named("hello").onGet(x -> x.respond("hello")));
        server.add(CoapResource.named("slow").onGet(parked::set));
        server.add(CoapResource.named("upload").onPost(x -> x.respond(Code.CHANGED, String.valueOf(x.payload().length))));
        server.add(CoapResource.named("big").onGet(x -> x.respond(Code.CONTENT, new byte[5000],
                io.stagecoach.core.coap.ContentFormat.OCTET_STREAM)));
        obs.setObservable(true);
        obs.onGet(x -> x.respond("state " + state));
        server.add(obs);
        server.start();
        endpoint = server.endpoints().get(0);
        assertTrue(endpoint.isReliableTransport());
    }

    @AfterEach
    void stop() {
        server.destroy();
    }

    private static Request get(long token, String path) {
        return Request.get().token(Token.ofLong(token)).options(o -> o.uriPath(List.of(path))).build();
    }

    /** Connects and checks our CSM, then sends the peer's. */
    private Peer connected(int port) throws Exception {
        Peer p = connector.connect(port);
        SignalingMessage csm = p.nextSignal();
        assertEquals(Code.CSM, csm.code());
        assertEquals(MAX, csm.maxMessageSize(), "our CSM announces tcp.max-message-size");
        p.write(SignalingMessage.csm(1152, false));
        return p;
    }

    @Test
    void csmFirstBothWaysThenRequestsMatchByToken() throws Exception {
        Peer p = connected(40001);
        assertFalse(p.hasSent());
        p.write(get(0x42, "hello"));
        Message m = p.nextMessage();
        assertEquals(Code.CONTENT, m.code());
        assertEquals(Token.ofLong(0x42), m.token());
        assertEquals("hello", m.payloadString());
        assertNull(m.type(), "no type over TCP");
        assertEquals(-1, m.mid(), "no MID over TCP");
        assertEquals(0, endpoint.openExchanges());
        assertEquals(0, endpoint.dedupEntries(), "no deduplication");
    }

    @Test
    void aPeersCsmSetsWhatWeMaySend() throws Exception {
        Peer p = connector.connect(40002);
        p.nextSignal();
        ReliableConnection c = transport().connection(p.context.peer());
        assertEquals(1152, c.peerMaxMessageSize, "the base value until the peer's CSM");
        p.write(SignalingMessage.csm(2000, true));
        assertEquals(2000, c.peerMaxMessageSize);
        assertTrue(c.peerBlockWise);
        p.write(SignalingMessage.csm(-1, false));
        assertEquals(2000, c.peerMaxMessageSize, "a CSM without the option changes nothing");
    }

    private ReliableTransport transport() throws Exception {
        var f = CoapEndpoint.class.getDeclaredField("reliable");
        f.setAccessible(true);
        return (ReliableTransport) f.get(endpoint);
    }

    @Test
    void aRequestBeforeTheCsmAborts() throws Exception {
        Peer p = connector.connect(40003);
        p.nextSignal();
        p.write(get(1, "hello"));
        SignalingMessage abort = p.nextSignal();
        assertEquals(Code.ABORT, abort.code());
        assertTrue(abort.diagnostic().contains("CSM"), abort.diagnostic());
        assertTrue(p.closed);
    }

    @Test
    void pingIsAnsweredWithPongAndCustodyWaitsForEarlierRequests() throws Exception {
        Peer p = connected(40004);
        p.write(SignalingMessage.ping(Token.ofLong(9), false));
        SignalingMessage pong = p.nextSignal();
        assertEquals(Code.PONG, pong.code());
        assertEquals(Token.ofLong(9), pong.token());
        assertFalse(pong.custody());

        p.write(get(5, "slow")); // the handler keeps it
        p.write(SignalingMessage.ping(Token.ofLong(10), true));
        assertFalse(p.hasSent(), "custody: no Pong while an earlier request is unanswered");
        parked.get().respond("done");
        Message response = p.nextMessage();
        assertEquals("done", response.payloadString());
        SignalingMessage custody = p.nextSignal();
        assertEquals(Code.PONG, custody.code());
        assertEquals(Token.ofLong(10), custody.token());
        assertTrue(custody.custody());
    }

    @Test
    void ourPingCompletesOnThePeersPong() throws Exception {
        Peer p = connected(40005);
        Exchange ping = endpoint.ping(p.context, Duration.ofSeconds(5));
        SignalingMessage sent = p.nextSignal();
        assertEquals(Code.PING, sent.code());
        p.write(SignalingMessage.pongFor(sent, false));
        assertTrue(ping.isComplete());
        assertNull(ping.failure());

        Exchange unanswered = endpoint.ping(p.context, Duration.ofSeconds(5));
        p.nextSignal();
        clock.advance(Duration.ofSeconds(6));
        assertTrue(unanswered.failure() != null, "no Pong: the ping times out");
    }

    @Test
    void releaseClosesOnceTheOpenExchangesAreDone() throws Exception {
        Peer p = connected(40006);
        p.write(get(5, "slow"));
        p.write(SignalingMessage.release(List.of("coap+tcp://other.example"), 30, "moving"));
        assertFalse(p.closed, "the request in progress is still answered");
        parked.get().respond("done");
        assertEquals("done", p.nextMessage().payloadString());
        assertTrue(p.closed);
    }

    @Test
    void holdOffKeepsUsFromRequestingTooSoon() throws Exception {
        Peer p = connected(40008);
        p.write(SignalingMessage.release(List.of(), 30, "maintenance"));
        assertTrue(p.closed);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Exchange.Listener listener = new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                failed.set(cause);
            }
        };
        endpoint.sendRequest(Request.get().peer(p.context).options(o -> o.uriPath(List.of("x"))).build(), listener);
        assertTrue(failed.get() != null && failed.get().getMessage().contains("Hold-Off"), String.valueOf(failed.get()));
        clock.advance(Duration.ofSeconds(31));
        failed.set(null);
        endpoint.sendRequest(Request.get().peer(p.context).options(o -> o.uriPath(List.of("x"))).build(), listener);
        assertTrue(failed.get() == null || !failed.get().getMessage().contains("Hold-Off"), "hold-off over");
    }

    @Test
    void abortFromThePeerClosesTheConnection() throws Exception {
        Peer p = connected(40007);
        p.write(SignalingMessage.abort(-1, "bye"));
        assertTrue(p.closed);
        assertEquals(0, transport().connections());
    }

    @Test
    void badFramesAreAbortedWithADiagnosticThenClosed() throws Exception {
        // a frame announcing more than our Max-Message-Size: refused before its body arrives
        Peer big = connected(40010);
        big.write(new byte[] {(byte) 0xE0, 0x7F, (byte) 0xFF, 0x01});
        SignalingMessage abort = big.nextSignal();
        assertEquals(Code.ABORT, abort.code());
        assertFalse(abort.diagnostic().isEmpty());
        assertTrue(big.closed);

        // TKL 9 is reserved
        Peer tkl = connected(40011);
        tkl.write(new byte[] {0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        assertEquals(Code.ABORT, tkl.nextSignal().code());
        assertTrue(tkl.closed);

        // an unknown critical option in a CSM: Abort with Bad-CSM-Option
        Peer csm = connector.connect(40012);
        csm.nextSignal();
        csm.write(new byte[] {0x10, (byte) 0xE1, (byte) 0x90}); // Len 1, 7.01, option 9 (critical, unknown)
        SignalingMessage badCsm = csm.nextSignal();
        assertEquals(Code.ABORT, badCsm.code());
        assertEquals(9, badCsm.badCsmOption());
        assertTrue(csm.closed);

        // an Empty message with a payload is ignored; the connection goes on
        Peer empty = connected(40013);
        empty.write(new byte[] {0x30, 0x00, (byte) 0xFF, 0x41, 0x42});
        assertFalse(empty.hasSent());
        empty.write(get(3, "hello"));
        assertEquals("hello", empty.nextMessage().payloadString());
        assertFalse(empty.closed);
    }

    @Test
    void anUnrecognizedCriticalOptionGets402() throws Exception {
        Peer p = connected(40014);
        Request r = Request.get().token(Token.ofLong(4)).options(o -> o.uriPath(List.of("hello"))
                .add(Option.of(65001, new byte[] {1}))).build();
        p.write(r);
        Message m = p.nextMessage();
        assertEquals(Code.BAD_OPTION, m.code());
        assertFalse(p.closed);
    }

    @Test
    void aMissingCsmTimesOut() throws Exception {
        Peer p = connector.connect(40020);
        p.nextSignal();
        clock.advance(Duration.ofSeconds(9));
        assertFalse(p.closed);
        clock.advance(Duration.ofSeconds(2));
        SignalingMessage abort = p.nextSignal();
        assertEquals(Code.ABORT, abort.code());
        assertTrue(abort.diagnostic().contains("CSM"), abort.diagnostic());
        assertTrue(p.closed);
    }

    @Test
    void anIncompleteFrameTimesOut() throws Exception {
        Peer p = connected(40021);
        byte[] frame = p.serializer.serialize(get(1, "hello"));
        p.write(java.util.Arrays.copyOf(frame, 3)); // a slowloris: the rest never comes
        clock.advance(Duration.ofSeconds(4));
        assertFalse(p.closed);
        clock.advance(Duration.ofSeconds(2));
        SignalingMessage abort = p.nextSignal();
        assertEquals(Code.ABORT, abort.code());
        assertTrue(abort.diagnostic().contains("incomplete"), abort.diagnostic());
        assertTrue(p.closed);
    }

    @Test
    void anIdleConnectionIsReleasedAndClosed() throws Exception {
        Peer busy = connected(40022);
        Peer idle = connected(40023);
        busy.write(get(7, "obs").newBuilder().options(o -> o.observe(0)).build());
        assertEquals("state 0", busy.nextMessage().payloadString());
        clock.advance(Duration.ofSeconds(61));
        SignalingMessage release = idle.nextSignal();
        assertEquals(Code.RELEASE, release.code());
        assertTrue(idle.closed);
        assertFalse(busy.closed, "an observe relation keeps its connection");
    }

    @Test
    void observeNotificationsCarrySequenceNumbersAndEndWithTheConnection() throws Exception {
        Peer p = connected(40030);
        p.write(get(8, "obs").newBuilder().options(o -> o.observe(0)).build());
        Message first = p.nextMessage();
        assertTrue(first.options().observe() >= 0);
        int last = first.options().observe();
        for (int i = 1; i <= 5; i++) {
            state = i; // no ACK ever comes over TCP: every notification still goes out
            obs.changed();
            Message n = p.nextMessage();
            assertEquals("state " + i, n.payloadString());
            assertTrue(n.options().observe() > last, "sequence numbers increase");
            last = n.options().observe();
        }
        assertEquals(1, obs.observerCount());
        p.close();
        assertEquals(0, obs.observerCount());
        assertEquals(0, endpoint.observeRelations());
        assertEquals(0, endpoint.openExchanges());
    }

    @Test
    void webSocketFramesCarryNoLength() throws Exception {
        start(true);
        Peer p = connector.connect(40040);
        byte[] csm = p.nextFrame();
        assertEquals(0, (csm[0] & 0xF0) >> 4, "Len 0 over WebSockets (RFC 8323 4.2)");
        p.write(SignalingMessage.csm(1152, false));
        p.write(get(2, "hello"));
        assertEquals("hello", p.nextMessage().payloadString());
    }

    /**
     * Seeded random chunkings of a stream of valid frames, some streams ending in a hostile
     * length: every valid request before it is answered in order, the hostile frame gets Abort
     * and the close, and nothing throws.
     */
    @Test
    void randomChunkingsAndHostileLengths() throws Exception {
        SplittableRandom random = new SplittableRandom(8323);
        for (int round = 0; round < 300; round++) {
            Peer p = connector.connect(41000 + round);
            p.nextSignal();
            java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
            stream.writeBytes(p.serializer.serialize(SignalingMessage.csm(1152, false)));
            int requests = random.nextInt(1, 6);
            for (int i = 0; i < requests; i++) {
                stream.writeBytes(p.serializer.serialize(get(i + 1, "hello")));
            }
            boolean hostile = random.nextBoolean();
            if (hostile) {
                // Len 15 with a 4-byte extended length up to 2^32: far above the limit
                int ext = random.nextInt(MAX, Integer.MAX_VALUE);
                stream.writeBytes(new byte[] {(byte) 0xF0, (byte) (ext >>> 24), (byte) (ext >>> 16),
                    (byte) (ext >>> 8), (byte) ext, 0x01});
                byte[] junk = new byte[random.nextInt(0, 64)];
                random.nextBytes(junk);
                stream.writeBytes(junk);
            }
            byte[] all = stream.toByteArray();
            int off = 0;
            while (off < all.length && !p.closed) {
                int n = Math.min(all.length - off, random.nextInt(1, 12));
                p.write(java.util.Arrays.copyOfRange(all, off, off + n));
                off += n;
            }
            for (int i = 0; i < requests; i++) {
                Message m = p.nextMessage();
                assertEquals(Token.ofLong(i + 1), m.token(), "round " + round);
            }
            if (hostile) {
                assertEquals(Code.ABORT, p.nextSignal().code(), "round " + round);
                assertTrue(p.closed);
            } else {
                assertFalse(p.closed);
                p.close();
            }
            assertFalse(p.hasSent());
        }
        assertEquals(0, transport().connections());
        assertEquals(0, endpoint.openExchanges());
    }

    private static io.stagecoach.core.coap.BlockOption bert(int num, boolean more) {
        return io.stagecoach.core.coap.BlockOption.of(num, more, 7, true);
    }

    @Test
    void bertUploadsAreReassembled() throws Exception {
        Peer p = connector.connect(40050);
        p.nextSignal();
        p.write(SignalingMessage.csm(8192, true));
        Request block0 = Request.post().token(Token.ofLong(1)).options(o -> o.uriPath(List.of("upload"))
                .block1(bert(0, true))).payload(new byte[2048]).build();
        p.write(block0);
        Message cont = p.nextMessage();
        assertEquals(Code.CONTINUE, cont.code());
        assertEquals(bert(0, true), io.stagecoach.core.coap.ReliableTransportOptions.block1(cont.options()));
        Request last = Request.post().token(Token.ofLong(2)).options(o -> o.uriPath(List.of("upload"))
                .block1(bert(2, false))).payload(new byte[500]).build();
        p.write(last);
        Message done = p.nextMessage();
        assertEquals(Code.CHANGED, done.code());
        assertEquals("2548", done.payloadString(), "2 x 1024 + 500 bytes in two BERT messages");
    }

    @Test
    void bertDownloadsFitThePeersMaxMessageSize() throws Exception {
        Peer p = connector.connect(40051);
        p.nextSignal();
        p.write(SignalingMessage.csm(3000, true)); // (3000 - 256) / 1024: 2 KiB per BERT message
        int[] sizes = {2048, 2048, 904};
        int num = 0;
        for (int i = 0; i < sizes.length; i++) {
            int n = num;
            p.write(Request.get().token(Token.ofLong(10 + i)).options(o -> o.uriPath(List.of("big"))
                    .block2(bert(n, false))).build());
            Message m = p.nextMessage();
            assertEquals(Code.CONTENT, m.code());
            assertEquals(sizes[i], m.payloadLength());
            var b2 = io.stagecoach.core.coap.ReliableTransportOptions.block2(m.options());
            assertTrue(b2.isBert());
            assertEquals(num, b2.num());
            assertEquals(i < sizes.length - 1, b2.more());
            num += sizes[i] / 1024;
        }
    }

    @Test
    void withoutBlockWiseTransferInThePeersCsmNoBertIsSent() throws Exception {
        Peer p = connected(40052); // CSM(1152, no Block-Wise-Transfer)
        p.write(get(1, "big"));
        Message m = p.nextMessage();
        assertEquals(Code.CONTENT, m.code());
        assertFalse(m.options().block2().isBert());
        assertTrue(m.payloadLength() <= 1024);
    }

    @Test
    void theServerSendsARequestOnTheClientsConnection() throws Exception {
        Peer p = connected(40060);
        AtomicReference<Response> answer = new AtomicReference<>();
        endpoint.sendRequest(Request.get().peer(p.context).options(o -> o.uriPath(List.of("device-info"))).build(),
                new Exchange.Listener() {
                    @Override
                    public void onResponse(Exchange exchange, Response response) {
                        answer.set(response);
                    }

                    @Override
                    public void onFailure(Exchange exchange, Throwable cause) {
                    }
                });
        Message request = p.nextMessage();
        assertEquals(Code.GET, request.code());
        assertFalse(request.token().isEmpty());
        p.write(Response.builder(Code.CONTENT).token(request.token()).payload("v1.2").build());
        assertEquals("v1.2", answer.get().payloadString(), "a connection carries requests both ways (RFC 8323 §3)");
        assertEquals(0, endpoint.openExchanges());
    }

    @Test
    void ourCsmOffersBert() throws Exception {
        Peer p = connector.connect(40053);
        SignalingMessage csm = p.nextSignal();
        assertTrue(csm.blockWiseTransfer(), "Block-Wise-Transfer with a Max-Message-Size above 1152: BERT");
        assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), new byte[] {'x'});
        assertTrue(new ArrayList<>().isEmpty());
    }
}
