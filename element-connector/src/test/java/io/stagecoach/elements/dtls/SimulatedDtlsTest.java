package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * DTLS over the in-memory network on a virtual clock: record routing and the cookie defence with
 * spoofed source addresses, which real sockets cannot produce. Handshake threads are real (BC
 * blocks and times with the wall clock), so the test advances time in small steps until a
 * handshake's flights have gone through; everything after the handshake runs in lockstep.
 */
class SimulatedDtlsTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork network = new SimulatedNetwork(clock, 1);
    private DtlsConnector server;
    private DtlsConnector client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.destroy();
        }
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static InetSocketAddress at(String ip, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    /** Advances 1 ms steps until {@code inbox} has a datagram (bounded in wall time). */
    private RawData pump(Inbox inbox) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DtlsTestSupport.TIMEOUT_S);
        while (System.nanoTime() < deadline) {
            clock.advance(Duration.ofMillis(1));
            RawData d = inbox.queue.poll(1, TimeUnit.MILLISECONDS);
            if (d != null) {
                return d;
            }
        }
        throw new AssertionError("nothing arrived");
    }

    @Test
    void establishedSessionIsServedThroughAFloodOfSpoofedClientHellos() throws Exception {
        InetSocketAddress serverAddress = at("192.0.2.1", 5684);
        SimulatedConnector serverPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> serverPort).build();
        DtlsTestSupport.echo(server);
        server.start();
        SimulatedConnector clientPort = network.connector(at("198.51.100.7", 40000));
        client = DtlsTestSupport.pskClient().scheduler(clock).transport(c -> clientPort).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();

        client.send(RawData.outbound("hello".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:hello", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));

        // from here on: lockstep, no handshake thread involved
        int flood = 5000;
        for (int i = 0; i < flood; i++) {
            // spoofed sources: each ClientHello claims another address (10.0.x.y, port varies)
            InetSocketAddress spoofed = at("10.0." + (i / 250) + "." + (i % 250 + 1), 1024 + i);
            sendFrom(spoofed, serverAddress, ClientHellos.minimal(i));
            if (i % 500 == 0) {
                client.send(RawData.outbound(("m" + i).getBytes(), EndpointContext.of(serverAddress), null));
            }
            clock.advance(Duration.ofMillis(0));
        }
        clock.advance(Duration.ofMillis(1));
        for (int i = 0; i < flood; i += 500) {
            RawData d = inbox.queue.poll();
            assertEquals("echo:m" + i, d == null ? null : new String(d.bytes(), StandardCharsets.UTF_8));
        }
        assertEquals(flood + 1, server.dtlsCounters().helloVerifyRequestsSent());
        assertEquals(0, server.handshakeCount(), "no state for a cookie-less hello");
        assertEquals(1, server.sessionCount());
    }

    @Test
    void clientHandshakesAgainWhenItsRecordsGoUnansweredForTheSilenceTimeout() throws Exception {
        // a cluster node that dies and a survivor behind the same address: the survivor drops the
        // records of a session it never had, so the client only notices the silence
        InetSocketAddress serverAddress = at("192.0.2.1", 5684);
        SimulatedConnector firstPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> firstPort).build();
        DtlsTestSupport.echo(server);
        server.start();
        SimulatedConnector clientPort = network.connector(at("198.51.100.7", 40000));
        client = DtlsTestSupport.pskClient().scheduler(clock).clientSilenceTimeout(Duration.ofSeconds(5))
                .transport(c -> clientPort).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();
        client.send(RawData.outbound("a".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:a", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));

        // answered records keep the session however long the pauses between them
        clock.advance(Duration.ofSeconds(60));
        client.send(RawData.outbound("b".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:b", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));
        assertEquals(1, client.dtlsCounters().handshakesSucceeded());

        firstPort.stop(); // the node dies without a word: no close_notify reaches the client
        server.destroy();
        SimulatedConnector survivorPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> survivorPort).build();
        DtlsTestSupport.echo(server);
        server.start();

        client.send(RawData.outbound("c".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMillis(4999));
        client.send(RawData.outbound("d".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMillis(0));
        assertEquals(null, inbox.queue.poll(), "the survivor drops records of a session it does not know");
        assertEquals(1, client.dtlsCounters().handshakesStarted(), "4.999 s of silence: the session is kept");

        clock.advance(Duration.ofMillis(1));
        client.send(RawData.outbound("e".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:e", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));
        assertEquals(2, client.dtlsCounters().handshakesSucceeded(), "5 s of silence: a new session");
        assertEquals(1, server.sessionCount());
    }

    /**
     * An unanswered record followed by a pause longer than the window (three times the timeout,
     * at least 10 s) was not waiting for an answer, like an ACK before an idle time: the next
     * send starts the count again instead of a handshake; records that keep going unanswered
     * within the window then do start one.
     */
    @Test
    void aPauseLongerThanTheWindowStartsTheCountAgain() throws Exception {
        InetSocketAddress serverAddress = at("192.0.2.1", 5684);
        SimulatedConnector firstPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> firstPort).build();
        DtlsTestSupport.echo(server);
        server.start();
        SimulatedConnector clientPort = network.connector(at("198.51.100.7", 40000));
        client = DtlsTestSupport.pskClient().scheduler(clock).clientSilenceTimeout(Duration.ofSeconds(5))
                .transport(c -> clientPort).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();
        client.send(RawData.outbound("a".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:a", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));
        firstPort.stop();
        server.destroy();
        SimulatedConnector survivorPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> survivorPort).build();
        DtlsTestSupport.echo(server);
        server.start();

        client.send(RawData.outbound("ack".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMillis(15_001)); // beyond the window of 3 x 5 s
        client.send(RawData.outbound("b".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMillis(4_999));
        client.send(RawData.outbound("c".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ZERO);
        assertEquals(1, client.dtlsCounters().handshakesStarted(), "the count started again at b");
        clock.advance(Duration.ofMillis(1));
        client.send(RawData.outbound("d".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:d", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));
        assertEquals(2, client.dtlsCounters().handshakesSucceeded(), "5 s after b: a new session");
    }

    @Test
    void silenceTimeoutZeroKeepsAnUnansweredSession() throws Exception {
        InetSocketAddress serverAddress = at("192.0.2.1", 5684);
        SimulatedConnector firstPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> firstPort).build();
        DtlsTestSupport.echo(server);
        server.start();
        SimulatedConnector clientPort = network.connector(at("198.51.100.7", 40000));
        client = DtlsTestSupport.pskClient().scheduler(clock).clientSilenceTimeout(Duration.ZERO)
                .transport(c -> clientPort).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();
        client.send(RawData.outbound("a".getBytes(), EndpointContext.of(serverAddress), null));
        assertEquals("echo:a", new String(pump(inbox).bytes(), StandardCharsets.UTF_8));
        firstPort.stop(); // the node dies without a word: no close_notify reaches the client
        server.destroy();
        SimulatedConnector survivorPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> survivorPort).build();
        server.start();

        client.send(RawData.outbound("b".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMinutes(10));
        client.send(RawData.outbound("c".getBytes(), EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ofMillis(0));
        assertEquals(1, client.dtlsCounters().handshakesStarted());
        assertEquals(0, server.handshakeCount() + server.sessionCount());
    }

    @Test
    void aClientBehindAnAddressFloodingFromAThousandPortsCompletesItsHandshake() throws Exception {
        InetSocketAddress serverAddress = at("192.0.2.1", 5684);
        SimulatedConnector serverPort = network.connector(serverAddress);
        server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> serverPort).build();
        DtlsTestSupport.echo(server);
        server.start();
        // a NAT: the client and the flood share the address 198.51.100.7; the flood sends 50 first
        // hellos per virtual millisecond (50,000/s) from 1,000 other ports, 25 times the address's
        // count of 2,000/s
        int[] next = {0};
        for (int ms = 0; ms < 1_000; ms++) {
            floodOneMillisecond(serverAddress, next);
        }
        SimulatedConnector clientPort = network.connector(at("198.51.100.7", 40000));
        client = DtlsTestSupport.pskClient().scheduler(clock).transport(c -> clientPort).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();
        client.send(RawData.outbound("hello".getBytes(), EndpointContext.of(serverAddress), null));

        RawData answer = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DtlsTestSupport.TIMEOUT_S);
        while (answer == null && System.nanoTime() < deadline) {
            floodOneMillisecond(serverAddress, next);
            answer = inbox.queue.poll(1, TimeUnit.MILLISECONDS);
        }
        assertEquals("echo:hello", answer == null ? null : new String(answer.bytes(), StandardCharsets.UTF_8));
        assertEquals(1, server.dtlsCounters().handshakesSucceeded());
        long flooded = next[0];
        assertTrue(server.dtlsCounters().hellosDropped() > flooded * 9 / 10, "the flood beyond the ports' turns is dropped");
    }

    private void floodOneMillisecond(InetSocketAddress server, int[] next) throws Exception {
        for (int k = 0; k < 50; k++) {
            int n = next[0]++;
            sendFrom(at("198.51.100.7", 10_000 + n % 1_000), server, ClientHellos.minimal(n));
        }
        clock.advance(Duration.ofMillis(1));
    }

    private final java.util.Map<InetSocketAddress, SimulatedConnector> spoofers = new java.util.HashMap<>();

    private void sendFrom(InetSocketAddress from, InetSocketAddress to, byte[] bytes) throws Exception {
        SimulatedConnector c = spoofers.get(from);
        if (c == null) {
            c = network.connector(from);
            c.start();
            spoofers.put(from, c);
        }
        c.send(RawData.outbound(bytes, EndpointContext.of(to), null));
    }
}
