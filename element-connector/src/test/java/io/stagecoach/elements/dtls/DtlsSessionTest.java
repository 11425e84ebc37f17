package io.stagecoach.elements.dtls;

import static io.stagecoach.elements.dtls.DtlsTestSupport.TIMEOUT_S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RebindingConnector;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Session life on loopback: connection IDs, resumption, close_notify, expiry, limits, hostile records. */
class DtlsSessionTest {

    private final List<Connector> opened = new ArrayList<>();

    private DtlsConnector open(DtlsConnectorConfig.Builder b) throws Exception {
        DtlsConnector c = b.build();
        opened.add(c);
        c.start();
        return c;
    }

    @AfterEach
    void stopAll() {
        opened.forEach(Connector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Waits for a condition another thread makes true; bounded. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        if (!Await.until(condition, Duration.ofSeconds(TIMEOUT_S))) {
            throw new AssertionError("timed out waiting for " + what);
        }
    }

    private static String roundTrip(DtlsConnector client, Inbox inbox, InetSocketAddress server, String text)
            throws Exception {
        DtlsTestSupport.send(client, server, text.getBytes(StandardCharsets.UTF_8)).get(TIMEOUT_S, TimeUnit.SECONDS);
        return new String(inbox.take().bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void sessionSurvivesTheClientsPortChangingThanksToTheConnectionId() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsTestSupport.echo(server);
        RebindingConnector socket = new RebindingConnector(
                () -> UdpConnector.builder().bindAddress(DtlsTestSupport.LOOPBACK).build());
        DtlsConnector client = open(DtlsTestSupport.pskClient().transport(c -> socket));
        Inbox inbox = new Inbox();
        inbox.attach(client);
        assertEquals("echo:before", roundTrip(client, inbox, server.getAddress(), "before"));
        InetSocketAddress oldAddress = client.getAddress();

        socket.rebind();
        assertNotEquals(oldAddress, client.getAddress());
        assertEquals("echo:after", roundTrip(client, inbox, server.getAddress(), "after"));

        assertEquals(1, server.dtlsCounters().handshakesSucceeded(), "no new handshake");
        assertEquals(1, server.dtlsCounters().addressChanges());
        assertEquals(1, server.sessionCount());
        assertNotNull(server.sessionContext(client.getAddress()), "session moved to the new address");
    }

    @Test
    void withoutConnectionIdsAPortChangeNeedsANewHandshake() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer().cidLength(0));
        DtlsTestSupport.echo(server);
        RebindingConnector socket = new RebindingConnector(
                () -> UdpConnector.builder().bindAddress(DtlsTestSupport.LOOPBACK).build());
        DtlsConnector client = open(DtlsTestSupport.pskClient().transport(c -> socket));
        Inbox inbox = new Inbox();
        inbox.attach(client);
        assertEquals("echo:before", roundTrip(client, inbox, server.getAddress(), "before"));
        socket.rebind();
        DtlsTestSupport.send(client, server.getAddress(), "lost".getBytes()).get(TIMEOUT_S, TimeUnit.SECONDS);
        await(() -> server.dtlsCounters().datagramsNoSession() == 1, "the record from the new port dropped");
        assertEquals(0, server.dtlsCounters().addressChanges());
    }

    @Test
    void secondConnectionResumesTheSession() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsTestSupport.echo(server);
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);
        assertEquals("echo:one", roundTrip(client, inbox, server.getAddress(), "one"));
        String firstId = server.sessionContext(client.getAddress()).attribute(DtlsContextKeys.SESSION_ID);

        client.stop(); // close_notify; the client keeps its resumption cache
        await(() -> server.sessionCount() == 0, "server saw close_notify");
        client.start();
        assertEquals("echo:two", roundTrip(client, inbox, server.getAddress(), "two"));
        assertEquals(1, server.dtlsCounters().sessionsResumed());
        assertEquals(firstId, server.sessionContext(client.getAddress()).attribute(DtlsContextKeys.SESSION_ID));
        assertEquals(PeerPrincipal.psk("client1"),
                server.sessionContext(client.getAddress()).attribute(DtlsContextKeys.PRINCIPAL));
    }

    @Test
    void closeNotifyBothWays() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsTestSupport.echo(server);
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);
        roundTrip(client, inbox, server.getAddress(), "x");
        client.stop();
        await(() -> server.sessionCount() == 0, "server dropped the session on close_notify");
        assertEquals(1, server.dtlsCounters().sessionsClosedByPeer());

        client.start();
        roundTrip(client, inbox, server.getAddress(), "y");
        server.stop();
        await(() -> client.sessionCount() == 0, "client dropped the session on close_notify");
        assertEquals(1, client.dtlsCounters().sessionsClosedByPeer());
    }

    @Test
    void idleSessionsExpireOnTheVirtualClock() throws Exception {
        VirtualClock clock = new VirtualClock();
        DtlsConnector server = open(DtlsTestSupport.pskServer().scheduler(clock)
                .sessionIdleTimeout(Duration.ofMinutes(10)));
        DtlsTestSupport.echo(server);
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);
        roundTrip(client, inbox, server.getAddress(), "x");
        clock.advance(Duration.ofMinutes(9));
        assertEquals(1, server.sessionCount());
        roundTrip(client, inbox, server.getAddress(), "y"); // activity at minute 9
        clock.advance(Duration.ofMinutes(9));
        assertEquals(1, server.sessionCount(), "idle only 9 minutes");
        clock.advance(Duration.ofMinutes(2));
        assertEquals(0, server.sessionCount());
        assertEquals(1, server.dtlsCounters().sessionsExpired());
    }

    /**
     * A client handshake with a peer that never answers ends at the handshake timeout by the sweep,
     * while BouncyCastle's thread still waits; the failure is counted before the waiting send
     * learns of it, and once although both paths see it fail.
     */
    @Test
    void aTimedOutHandshakeIsCountedOnceBeforeItsSendFails() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (DatagramSocket silent = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            DtlsConnector client = open(DtlsTestSupport.pskClient().scheduler(clock)
                    .handshakeTimeout(Duration.ofSeconds(30)));
            CompletableFuture<Void> sent = DtlsTestSupport.send(client,
                    (InetSocketAddress) silent.getLocalSocketAddress(), "x".getBytes(StandardCharsets.UTF_8));
            await(() -> client.dtlsCounters().handshakesStarted() == 1, "the handshake to start");
            clock.advance(Duration.ofSeconds(31)); // the sweep runs here, on this thread
            assertTrue(sent.isCompletedExceptionally(), "the queued send failed with the handshake");
            assertEquals(1, client.dtlsCounters().handshakesFailed(), "counted before the send failed");
            client.destroy(); // joins BouncyCastle's thread, which then sees its transport closed
            assertEquals(1, client.dtlsCounters().handshakesFailed(), "and counted once");
        }
    }

    @Test
    void handshakeLimitAndAsynchronousPskLookup() throws Exception {
        CompletableFuture<byte[]> registry = new CompletableFuture<>();
        List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        DtlsConnector server = open(DtlsTestSupport.pskServer().maxHandshakes(1).handshakeThreads(1)
                .pskStore((identity, peer) -> {
                    asked.add(identity);
                    return registry; // answered later, by the test
                }));
        DtlsTestSupport.echo(server);
        DtlsConnector first = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(first);
        CompletableFuture<Void> sent = DtlsTestSupport.send(first, server.getAddress(), "a".getBytes());
        await(() -> asked.size() == 1, "the lookup started from the receive thread");
        assertEquals("client1", asked.get(0));

        DtlsConnector second = open(DtlsTestSupport.pskClient().retransmissionTimeout(Duration.ofMillis(100)));
        DtlsTestSupport.send(second, server.getAddress(), "b".getBytes());
        await(() -> server.dtlsCounters().handshakesRejected() >= 1, "second handshake refused at the limit");
        assertEquals(1, server.handshakeCount());

        registry.complete("secretPSK".getBytes(StandardCharsets.UTF_8));
        sent.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals("echo:a", new String(inbox.take().bytes(), StandardCharsets.UTF_8));
        assertEquals(1, server.dtlsCounters().pskLookups(), "BC's callback found the answer cached");
    }

    /** A client socket that passes up only its first datagram (the HelloVerifyRequest), then goes deaf. */
    private static Connector deafAfterCookie() {
        return new ForwardingConnector(
                io.stagecoach.elements.udp.UdpConnector.builder().bindAddress(DtlsTestSupport.LOOPBACK).build()) {
            private final java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public void setRawDataReceiver(io.stagecoach.elements.RawDataReceiver receiver) {
                super.setRawDataReceiver(d -> {
                    if (seen.getAndIncrement() == 0) {
                        receiver.receiveData(d);
                    }
                });
            }
        };
    }

    @Test
    void handshakesAbandonedAfterTheCookieDoNotStallOthers() throws Exception {
        // BC blocks a handshake thread until the peer's next flight or the handshake timeout (here
        // 10 min): three abandoned handshakes hold three threads, and a fourth must not wait for them
        DtlsConnector server = open(DtlsTestSupport.pskServer().handshakeThreads(1).maxHandshakesPerSource(8)
                .handshakeTimeout(Duration.ofMinutes(10)));
        DtlsTestSupport.echo(server);
        for (int i = 0; i < 3; i++) {
            DtlsConnector gone = open(DtlsTestSupport.pskClient().transport(c -> deafAfterCookie())
                    .retransmissionTimeout(Duration.ofMinutes(1)));
            DtlsTestSupport.send(gone, server.getAddress(), "lost".getBytes());
            int admitted = i + 1;
            await(() -> server.handshakeCount() == admitted, "abandoned handshake " + admitted + " admitted");
        }
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);
        assertEquals("echo:through", roundTrip(client, inbox, server.getAddress(), "through"));
        assertEquals(3, server.handshakeCount(), "the abandoned ones still wait for their peers");
    }

    @Test
    void helloVerifyRequestIsNeverLargerThanTheClientHello() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        // a socket per hello: a port's second cookie-less hello within a second waits for its turn
        for (byte[] hello : List.of(ClientHellos.minimal(0), ClientHellos.capturedFromOurClient())) {
            try (DatagramSocket raw = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
                raw.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
                raw.send(new DatagramPacket(hello, hello.length, server.getAddress()));
                DatagramPacket hvr = new DatagramPacket(new byte[2048], 2048);
                raw.receive(hvr);
                assertEquals(22, hvr.getData()[0], "handshake record");
                assertEquals(3, hvr.getData()[13], "hello_verify_request");
                assertTrue(hvr.getLength() <= hello.length, hvr.getLength() + " > " + hello.length);
            }
        }
        assertEquals(0, server.handshakeCount(), "no state for cookie-less hellos");
    }

    @Test
    void recordWithBadMacIsDroppedSilentlyAndCounted() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsTestSupport.echo(server);
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);
        roundTrip(client, inbox, server.getAddress(), "x");
        byte[] cid = HexFormat.of().parseHex(
                server.sessionContext(client.getAddress()).attribute(DtlsContextKeys.CONNECTION_ID));
        byte[] forged = new byte[13 + cid.length + 40];
        forged[0] = 25;
        forged[1] = (byte) 254;
        forged[2] = (byte) 253;
        forged[4] = 1; // epoch 1
        forged[10] = 100; // sequence 100: never seen, so no replay
        System.arraycopy(cid, 0, forged, 11, cid.length);
        forged[11 + cid.length + 1] = 40;
        try (DatagramSocket raw = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            raw.send(new DatagramPacket(forged, forged.length, server.getAddress()));
            byte[] shortOne = java.util.Arrays.copyOf(forged, 13 + cid.length + 5);
            shortOne[11 + cid.length + 1] = 5; // shorter than nonce + tag: would kill the session in BC 1.84
            raw.send(new DatagramPacket(shortOne, shortOne.length, server.getAddress()));
        }
        await(() -> server.dtlsCounters().recordsBadMac() == 1, "bad MAC counted");
        await(() -> server.dtlsCounters().datagramsMalformed() == 1, "short record counted");
        assertEquals(0, server.dtlsCounters().addressChanges(), "an unauthenticated record moves nothing");
        assertEquals("echo:still", roundTrip(client, inbox, server.getAddress(), "still"));
    }

    @Test
    void replayedRecordIsDroppedSilentlyAndMovesNothing() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsTestSupport.echo(server);
        List<byte[]> wire = new java.util.concurrent.CopyOnWriteArrayList<>();
        Connector[] below = new Connector[1];
        DtlsConnector client = open(DtlsTestSupport.pskClient().transport(c -> {
            below[0] = new ForwardingConnector(
                    io.stagecoach.elements.udp.UdpConnector.builder().bindAddress(DtlsTestSupport.LOOPBACK).build()) {
                @Override
                public void send(RawData data) {
                    wire.add(data.bytes());
                    super.send(data);
                }
            };
            return below[0];
        }));
        Inbox inbox = new Inbox();
        inbox.attach(client);
        assertEquals("echo:once", roundTrip(client, inbox, server.getAddress(), "once"));
        byte[] record = wire.get(wire.size() - 1);
        assertEquals(25, record[0], "the request went as a tls12_cid record");

        below[0].send(RawData.outbound(record, EndpointContext.of(server.getAddress()), null)); // same source
        try (DatagramSocket raw = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            raw.send(new DatagramPacket(record, record.length, server.getAddress())); // another source
        }
        await(() -> server.dtlsCounters().recordsReplayed() == 2, "both replays counted");
        assertEquals(0, server.dtlsCounters().addressChanges(), "a replay from elsewhere moves nothing");
        assertEquals(0, server.dtlsCounters().recordsBadMac());
        assertEquals("echo:next", roundTrip(client, inbox, server.getAddress(), "next"));
        assertEquals(0, inbox.queue.size(), "no echo of a replay");
        assertNotNull(server.sessionContext(client.getAddress()), "the session stays at the client's address");
    }
}
