package io.stagecoach.core.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.RebindingConnector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * coaps on the in-memory network with the virtual clock. Time stands still while a handshake
 * runs: BouncyCastle times its flights on the wall clock on the handshake threads, and the test
 * only delivers what they sent ({@code advance(ZERO)}), waiting for events with a bound. So the
 * CoAP stage is in lockstep throughout: no CoAP timer fires unless the test moves time, and the
 * counts of CoAP retransmissions are exact. Covered: a lost HelloVerifyRequest, each lost flight
 * of the PSK handshake, a lost request and a lost response after it (CoAP retransmits, the
 * server answers the duplicate from its cache), and a client whose address changes mid-session
 * with an observe relation (RFC 9146 connection ID), while a stranger takes its old address.
 */
class DtlsLockstepTest {

    private static final Duration BOUND = Duration.ofSeconds(20);
    /** BouncyCastle's first flight timer (wall clock); short so that a lost flight costs little. */
    private static final Duration FLIGHT_TIMER = Duration.ofMillis(200);
    private static final InetSocketAddress SERVER = at("192.0.2.1", 5684);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 7);
    private final Configuration config = CoapConfig.builder().set(CoapConfig.ACK_RANDOM_FACTOR, 1.0).build();
    private final List<CoapEndpoint> clients = new ArrayList<>();
    /** A permit per datagram sent by anyone: the pump wakes up on them, not on a timer. */
    private final Semaphore sends = new Semaphore(0);
    private final RecordTap serverTap = new RecordTap(net.connector(SERVER), sends::release);
    private CoapServer server;
    private volatile String obsValue = "0";
    private final AtomicInteger posts = new AtomicInteger();
    private final CoapResource obs = CoapResource.named("obs").setObservable(true).setObserveType(Type.CON)
            .onGet(ex -> ex.respond(obsValue));

    @AfterEach
    void stop() {
        for (CoapEndpoint c : clients) {
            c.destroy();
        }
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static InetSocketAddress at(String ip, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private void startServer() {
        server = CoapServer.builder().config(config).scheduler(clock).protocolExecutor(Runnable::run)
                .dtls(SERVER, d -> d.pskStore(DtlsTestKeys.PSK_STORE).retransmissionTimeout(FLIGHT_TIMER)
                        .transport(c -> serverTap))
                .build();
        server.add(obs, CoapResource.named("whoami").onGet(ex -> ex.respond(
                        ex.principal().map(PeerPrincipal::toString).orElse("anonymous"))),
                CoapResource.named("count").onPost(ex -> ex.respond(Code.CHANGED,
                        Integer.toString(posts.incrementAndGet()))));
        server.start();
    }

    private CoapEndpoint client(Connector below, PskCredentials psk) throws Exception {
        CoapEndpoint e = CoapEndpoint.builder().config(config).scheduler(clock).executor(Runnable::run)
                .dtlsClient(below.getAddress(), d -> d.pskCredentials(psk).retransmissionTimeout(FLIGHT_TIMER)
                        .transport(c -> below))
                .build();
        clients.add(e);
        e.start();
        return e;
    }

    private DtlsConnector serverDtls() {
        return (DtlsConnector) server.endpoints().get(0).connector();
    }

    private CoapEndpoint serverEndpoint() {
        return server.endpoints().get(0);
    }

    /**
     * Delivers what is in flight without moving time until {@code done}: datagrams the handshake
     * threads send are scheduled at the current instant. Between rounds it waits for the next
     * datagram sent anywhere (a handshake thread's, on BouncyCastle's wall-clock flight timer),
     * all of it within {@link #BOUND}.
     */
    private void pumpUntil(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (true) {
            sends.drainPermits();
            clock.advance(Duration.ZERO);
            if (done.getAsBoolean()) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !sends.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("no " + what + " within " + BOUND);
            }
        }
    }

    private <T> T pump(CompletableFuture<T> f) throws Exception {
        pumpUntil(f::isDone, "answer");
        try {
            return f.get(0, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    private CoapResponse get(CoapEndpoint endpoint, String path) throws Exception {
        return pump(new CoapClient("coaps://192.0.2.1:5684" + path, endpoint).getAsync());
    }

    private RecordTap tapAt(String ip, int port) {
        return new RecordTap(net.connector(at(ip, port)), sends::release);
    }

    @Test
    void lostHelloVerifyRequestIsMadeGoodByTheClientsRetransmittedHello() throws Exception {
        startServer();
        serverTap.lose("HelloVerifyRequest", 1);
        RecordTap clientTap = tapAt("198.51.100.7", 40000);
        CoapEndpoint client = client(clientTap, DtlsTestKeys.sensor());
        CoapResponse r = get(client, "/whoami");
        assertEquals("PSK:sensor-1", r.payloadText());
        assertEquals(1, serverTap.lost());
        assertTrue(clientTap.sent("ClientHello") >= 3, "hello, hello again, hello with the cookie");
        assertTrue(serverTap.sent("HelloVerifyRequest") >= 2);
        assertEquals(1, serverDtls().dtlsCounters().handshakesSucceeded());
        assertEquals(0, client.counters().get(Counter.RETRANSMISSIONS), "the CoAP request waited for the handshake");
    }

    @Test
    void lostServerHelloFlightIsRetransmitted() throws Exception {
        startServer();
        serverTap.lose("ServerHello", 1);
        CoapEndpoint client = client(tapAt("198.51.100.7", 40000), DtlsTestKeys.sensor());
        assertEquals("PSK:sensor-1", get(client, "/whoami").payloadText());
        assertTrue(serverTap.sent("ServerHello") >= 2, "the flight went again");
        assertEquals(0, client.counters().get(Counter.RETRANSMISSIONS));
    }

    @Test
    void lostClientKeyExchangeFlightIsRetransmitted() throws Exception {
        startServer();
        RecordTap clientTap = tapAt("198.51.100.7", 40000).lose("ClientKeyExchange", 1);
        CoapEndpoint client = client(clientTap, DtlsTestKeys.sensor());
        assertEquals("PSK:sensor-1", get(client, "/whoami").payloadText());
        assertTrue(clientTap.sent("ClientKeyExchange") >= 2, "the flight went again");
        assertEquals(1, serverDtls().dtlsCounters().handshakesSucceeded());
    }

    @Test
    void lostServerFinishedFlightIsRetransmitted() throws Exception {
        startServer();
        serverTap.lose("ChangeCipherSpec", 1);
        RecordTap clientTap = tapAt("198.51.100.7", 40000);
        CoapEndpoint client = client(clientTap, DtlsTestKeys.sensor());
        assertEquals("PSK:sensor-1", get(client, "/whoami").payloadText());
        assertTrue(serverTap.sent("ChangeCipherSpec") >= 2, "the server's last flight went again");
        assertTrue(clientTap.sent("ClientKeyExchange") >= 2, "prompted by the client's retransmitted flight");
    }

    @Test
    void lostRequestAndLostResponseAreRetransmittedByCoapOnTheVirtualClock() throws Exception {
        startServer();
        RecordTap clientTap = tapAt("198.51.100.7", 40000);
        CoapEndpoint client = client(clientTap, DtlsTestKeys.sensor());
        assertEquals("PSK:sensor-1", get(client, "/whoami").payloadText());

        // the request is lost: the client's records carry the server's connection ID (tls12_cid)
        clientTap.lose("Cid", 1);
        CompletableFuture<CoapResponse> f = new CoapClient("coaps://192.0.2.1:5684/whoami", client).getAsync();
        clock.advance(Duration.ZERO);
        assertFalse(f.isDone(), "nothing came back");
        assertEquals(0, client.counters().get(Counter.RETRANSMISSIONS));
        clock.advance(config.get(CoapConfig.ACK_TIMEOUT)); // ACK_RANDOM_FACTOR 1: exactly ACK_TIMEOUT
        assertEquals(1, client.counters().get(Counter.RETRANSMISSIONS));
        assertEquals("PSK:sensor-1", pump(f).payloadText());

        // the response is lost: the retransmitted POST is a duplicate, answered from the cache
        serverTap.lose("ApplicationData", 1);
        CompletableFuture<CoapResponse> g = new CoapClient("coaps://192.0.2.1:5684/count", client)
                .postAsync("x", ContentFormat.TEXT_PLAIN);
        clock.advance(Duration.ZERO);
        assertFalse(g.isDone());
        clock.advance(config.get(CoapConfig.ACK_TIMEOUT));
        assertEquals("1", pump(g).payloadText());
        assertEquals(2, client.counters().get(Counter.RETRANSMISSIONS));
        assertEquals(1, serverEndpoint().counters().get(Counter.DUPLICATES));
        assertEquals(1, posts.get(), "the handler ran once");
        assertEquals(1, serverDtls().dtlsCounters().handshakesSucceeded(), "one session throughout");
    }

    @Test
    void connectionIdCarriesRequestsAndObserveAcrossAnAddressChange() throws Exception {
        startServer();
        int[] port = {40000};
        RebindingConnector roaming = new RebindingConnector(() -> tapAt("198.51.100.7", port[0]++));
        CoapEndpoint a = client(roaming, DtlsTestKeys.sensor());
        CoapClient aClient = new CoapClient("coaps://192.0.2.1:5684/obs", a);
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        CoapObserveRelation relation = aClient.observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                seen.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) {
                seen.add("error: " + error);
            }
        });
        pumpUntil(() -> !seen.isEmpty(), "registration");
        assertEquals("0", seen.poll());
        change("1");
        assertEquals("1", seen.poll(), "a CON notification before the move");

        InetSocketAddress old = roaming.getAddress();
        roaming.rebind(); // NAT rebinding: a new port, the DTLS session and the CoAP endpoint unaware
        assertEquals(old.getPort() + 1, roaming.getAddress().getPort());
        assertEquals("PSK:sensor-1", get(a, "/whoami").payloadText(), "a request from the new address");
        assertEquals(1, serverDtls().dtlsCounters().addressChanges(), "the session moved with it (RFC 9146 §6)");

        // a stranger now has the old address: nothing of the moved session may reach it
        CoapEndpoint b = client(new RecordTap(net.connector(old), sends::release), DtlsTestKeys.admin());
        assertEquals("PSK:admin", get(b, "/whoami").payloadText());

        for (int i = 2; i <= 4; i++) {
            change(Integer.toString(i));
            assertEquals(Integer.toString(i), seen.poll(), "notification " + i + " at the new address");
        }
        // time for every retransmission: none happens, since the ACKs from the new address matched
        clock.advance(Duration.ofSeconds(100));
        CoapEndpoint s = serverEndpoint();
        assertEquals(0, s.counters().get(Counter.RETRANSMISSIONS), "every CON notification was acknowledged");
        assertEquals(0, s.counters().get(Counter.UNMATCHED));
        assertEquals(1, s.counters().get(Counter.PEER_MOVED), "the relation's exchange followed once");
        assertEquals(1, obs.observerCount());
        assertEquals(0, b.counters().get(Counter.RECEIVED_CON), "no notification went to the old address");
        assertFalse(relation.isCanceled());

        // deregistration from the new address finds the relation
        pump(relation.proactiveCancel());
        assertEquals(0, obs.observerCount());
        assertEquals(0, s.observeRelations());
        assertEquals(2, serverDtls().dtlsCounters().handshakesSucceeded(), "a and b, no new handshake for a");
    }

    /** Changes {@code /obs} and delivers the notification and its ACK (lockstep: no handshake runs). */
    private void change(String value) {
        obsValue = value;
        obs.changed();
        clock.advance(Duration.ZERO);
    }
}
