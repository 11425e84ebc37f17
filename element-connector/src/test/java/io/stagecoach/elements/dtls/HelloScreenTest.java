package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The receive path's handling of ClientHellos from addresses without a handshake: the hello
 * budget is met before the screen parses the datagram, and the cookie check reads the body the
 * screen found. A server on a virtual clock over a transport that hands datagrams in directly.
 */
class HelloScreenTest {

    private final VirtualClock clock = new VirtualClock();
    private final Wire wire = new Wire();
    private DtlsConnector server;

    /** The connector below the server: delivers what the test gives it, keeps the answers. */
    private final class Wire extends HandInConnector {
        final List<RawData> sent = new ArrayList<>();

        void deliver(byte[] datagram, InetSocketAddress from) {
            handIn(datagram, from, clock.nanoTime());
        }

        @Override
        public void send(RawData data) {
            sent.add(data);
            data.notifySent();
        }
    }

    private void startServer(int helloRatePerSource) throws Exception {
        server = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).pskStore(PskStore.of("client1", "secretPSK"))
                .maxHelloRatePerSource(helloRatePerSource).scheduler(clock).transport(c -> wire).build();
        server.start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
    }

    /** A hello-shaped datagram whose record claims more bytes than it carries: the screen drops it. */
    private static byte[] truncatedHello(long seq) {
        byte[] hello = ClientHellos.minimal(seq);
        return Arrays.copyOf(hello, hello.length - 10);
    }

    @Test
    void hellosBeyondTheBudgetAreDroppedBeforeTheScreen() throws Exception {
        startServer(2);
        for (int i = 0; i < 10; i++) {
            wire.deliver(truncatedHello(i), new InetSocketAddress("198.51.100.7", 40000 + i));
        }
        // the source's bucket holds one second's worth (2): those two reach the screen, which finds
        // them malformed; the other eight are dropped by the budget before any parsing
        assertEquals(2, server.dtlsCounters().datagramsMalformed());
        assertEquals(8, server.dtlsCounters().hellosDropped());
        assertTrue(wire.sent.isEmpty());
    }

    @Test
    void aWellFormedHelloWithinTheBudgetIsAnsweredFromTheScreenedBody() throws Exception {
        startServer(2);
        InetSocketAddress from = new InetSocketAddress("198.51.100.8", 40001);
        byte[] hello = ClientHellos.minimal(5);
        wire.deliver(hello, from);
        wire.deliver(ClientHellos.minimal(6), new InetSocketAddress("198.51.100.8", 40002));
        wire.deliver(ClientHellos.minimal(7), new InetSocketAddress("198.51.100.8", 40003)); // over the source's budget
        assertEquals(2, server.dtlsCounters().helloVerifyRequestsSent());
        assertEquals(1, server.dtlsCounters().hellosDropped());
        assertEquals(0, server.dtlsCounters().datagramsMalformed());
        RawData hvr = wire.sent.get(0);
        assertEquals(CookieVerifier.HVR_LENGTH, hvr.size());
        assertTrue(hvr.size() <= hello.length, "no amplification");
        assertEquals(3, hvr.bytes()[13], "hello_verify_request");
        assertArrayEquals(Arrays.copyOfRange(hello, 5, 11), Arrays.copyOfRange(hvr.bytes(), 5, 11),
                "the hello's record sequence number");
    }

    @Test
    void theBudgetRefillsWithTheClock() throws Exception {
        startServer(2);
        for (int i = 0; i < 4; i++) {
            wire.deliver(ClientHellos.minimal(i), new InetSocketAddress("198.51.100.9", 40010 + i));
        }
        assertEquals(2, server.dtlsCounters().helloVerifyRequestsSent());
        clock.advance(java.time.Duration.ofMillis(500)); // half a second at 2/s: one more
        wire.deliver(ClientHellos.minimal(10), new InetSocketAddress("198.51.100.9", 40020));
        wire.deliver(ClientHellos.minimal(11), new InetSocketAddress("198.51.100.9", 40021));
        assertEquals(3, server.dtlsCounters().helloVerifyRequestsSent());
        assertEquals(3, server.dtlsCounters().hellosDropped());
    }


    private long helloVerifyRequestsTo(InetSocketAddress peer) {
        return wire.sent.stream().filter(d -> d.context().peer().equals(peer) && d.bytes()[13] == 3).count();
    }

    /** One virtual millisecond of a flood: 50 first hellos from the next of 1,000 ports of {@code address}. */
    private void floodOneMillisecond(String address, int[] next) {
        for (int k = 0; k < 50; k++) {
            int n = next[0]++;
            byte[] hello = ClientHellos.minimal(n);
            // a fresh random each time, as a flooding generator sends (the minimal hello's repeats every 256)
            for (int b = 0; b < 4; b++) {
                hello[55 + b] = (byte) (n >>> (24 - 8 * b));
            }
            wire.deliver(hello, new InetSocketAddress(address, 10_000 + n % 1_000));
        }
        clock.advance(java.time.Duration.ofMillis(1));
    }

    @Test
    void aClientBehindAFloodingAddressIsAnsweredWithinItsRetransmissionSchedule() throws Exception {
        startServer(2_000);
        String nat = "198.51.100.20";
        InetSocketAddress client = new InetSocketAddress(nat, 50_000);
        int[] next = {0};
        for (int ms = 0; ms < 1_000; ms++) { // 50,000 first hellos/s from 1,000 ports of the client's address
            floodOneMillisecond(nat, next);
        }
        long droppedBefore = server.dtlsCounters().hellosDropped();
        wire.deliver(ClientHellos.minimal(1), client);
        assertEquals(1, helloVerifyRequestsTo(client), "the client's first hello is answered during the flood");

        // that HelloVerifyRequest is lost; the client sends its hello again after RFC 6347's initial 1 s timer
        for (int ms = 0; ms < 1_000; ms++) {
            floodOneMillisecond(nat, next);
        }
        wire.deliver(ClientHellos.minimal(1), client);
        assertEquals(2, helloVerifyRequestsTo(client), "its retransmission is answered too");
        assertTrue(server.dtlsCounters().hellosDropped() - droppedBefore > 48_000, "the flood's second second is dropped");
        // each flooding port got about one answer per second, not the address's whole count
        long answered = server.dtlsCounters().helloVerifyRequestsSent();
        assertTrue(answered >= 1_900 && answered <= 2_100, answered + " HelloVerifyRequests in 2 s");

        RawData hvr = wire.sent.stream().filter(d -> d.context().peer().equals(client)).reduce((a, b) -> b).orElseThrow();
        byte[] cookie = Arrays.copyOfRange(hvr.bytes(), 28, 28 + (hvr.bytes()[27] & 0xFF));
        floodOneMillisecond(nat, next);
        long started = server.dtlsCounters().handshakesStarted();
        wire.deliver(ClientHellos.withCookie(1, cookie), client);
        assertEquals(started + 1, server.dtlsCounters().handshakesStarted(),
                "its hello with the cookie is admitted although its port had its turn a moment ago");
    }

    @Test
    void onlyHandshakeRecordsOfEpochZeroStartingWithAClientHelloMayBeHellos() {
        byte[] hello = ClientHellos.minimal(1);
        assertTrue(DatagramScreen.mayBeClientHello(hello));
        byte[] appData = hello.clone();
        appData[0] = RecordHeader.APPLICATION_DATA;
        assertFalse(DatagramScreen.mayBeClientHello(appData));
        byte[] epoch1 = hello.clone();
        epoch1[4] = 1;
        assertFalse(DatagramScreen.mayBeClientHello(epoch1));
        byte[] keyExchange = hello.clone();
        keyExchange[13] = HandshakeFragment.CLIENT_KEY_EXCHANGE;
        assertFalse(DatagramScreen.mayBeClientHello(keyExchange));
        assertFalse(DatagramScreen.mayBeClientHello(Arrays.copyOf(hello, 13)));
    }

    @Test
    void theScreenedBodyGivesTheSameAnswerAsTheHeaderParse() throws Exception {
        CookieVerifier verifier = new CookieVerifier(new SecureRandom());
        InetSocketAddress from = new InetSocketAddress("203.0.113.4", 5000);
        for (byte[] hello : List.of(ClientHellos.minimal(3), ClientHellos.capturedFromOurClient())) {
            byte[] parsed = new byte[CookieVerifier.HVR_LENGTH];
            byte[] screened = new byte[CookieVerifier.HVR_LENGTH];
            assertEquals(CookieVerifier.Verdict.ANSWER, verifier.check(hello, from, parsed));
            assertEquals(CookieVerifier.Verdict.ANSWER, verifier.check(hello, 25, hello.length - 25, from, screened));
            assertArrayEquals(parsed, screened);
        }
    }
}
