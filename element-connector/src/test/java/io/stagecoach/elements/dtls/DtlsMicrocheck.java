package io.stagecoach.elements.dtls;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * Performance sanity, not a test (no timing assertions anywhere):
 * <ol>
 *   <li>round trips per second of a 30-byte datagram between our client and server connectors on
 *       loopback, PSK with TLS_PSK_WITH_AES_128_CCM_8, one sending thread, the server answering
 *       inline on its receive thread;</li>
 *   <li>heap per idle established server session: 1,000 sessions over the in-memory network,
 *       then the clients go away without close_notify, GC, and the server's growth is divided by
 *       1,000.</li>
 * </ol>
 * Run: {@code mvn -q -pl element-connector test-compile exec:java} is not set up; use
 * {@code java -cp "$(cat cp.txt):target/classes:target/test-classes" io.stagecoach.elements.dtls.DtlsMicrocheck}
 * (see docs/dtls.md).
 */
public final class DtlsMicrocheck {

    private DtlsMicrocheck() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        if (seconds > 0) {
            roundTrips(seconds);
        }
        heapPerSession(1000);
    }

    static void roundTrips(int seconds) throws Exception {
        DtlsConnector server = DtlsTestSupport.pskServer().cipherSuites(DtlsCipherSuite.TLS_PSK_WITH_AES_128_CCM_8)
                .build();
        server.setRawDataReceiver(d -> server.send(RawData.outbound(d.sharedBytes(),
                EndpointContext.of(d.context().peer()), null)));
        server.start();
        DtlsConnector client = DtlsTestSupport.pskClient().build();
        SynchronousQueue<RawData> answers = new SynchronousQueue<>();
        client.setRawDataReceiver(d -> {
            try {
                answers.put(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        client.start();
        byte[] payload = new byte[30];
        EndpointContext to = EndpointContext.of(server.getAddress());
        try {
            for (int phase = 0; phase < 2; phase++) { // warm-up, then measure
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(phase == 0 ? 3 : seconds);
                long count = 0;
                long start = System.nanoTime();
                while (System.nanoTime() < end) {
                    client.send(RawData.outbound(payload, to, null));
                    if (answers.poll(5, TimeUnit.SECONDS) == null) {
                        throw new IllegalStateException("lost a round trip");
                    }
                    count++;
                }
                double rate = count / ((System.nanoTime() - start) / 1e9);
                if (phase == 1) {
                    System.out.printf("round trips/s (30 B, PSK CCM_8, loopback, 1 thread): %.0f%n", rate);
                }
            }
        } finally {
            client.destroy();
            server.destroy();
        }
    }

    static void heapPerSession(int sessions) throws Exception {
        VirtualClock clock = new VirtualClock();
        SimulatedNetwork network = new SimulatedNetwork(clock, 7);
        InetSocketAddress serverAddress = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 5684);
        SimulatedConnector serverPort = network.connector(serverAddress);
        DtlsConnector server = DtlsTestSupport.pskServer().scheduler(clock).transport(c -> serverPort)
                .maxHandshakesPerSource(sessions).build();
        server.setRawDataReceiver(d -> { });
        server.start();
        long before = usedHeap();
        List<DtlsConnector> clients = new ArrayList<>();
        try {
            for (int i = 0; i < sessions; i++) {
                SimulatedConnector port = network.connector(new InetSocketAddress(
                        InetAddress.getByName("198.51.100." + (i % 250 + 1)), 20000 + i));
                DtlsConnector c = DtlsTestSupport.pskClient().scheduler(clock).transport(x -> port)
                        .handshakeThreads(1).build();
                c.start();
                clients.add(c);
                c.send(RawData.outbound(new byte[] {1}, EndpointContext.of(serverAddress), null));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (server.sessionCount() <= i && System.nanoTime() < deadline) {
                    clock.advance(Duration.ofMillis(1));
                    Thread.sleep(1); // keep virtual time from outrunning BC's real-time handshake threads
                }
            }
            network.setDefaultConditions(LinkConditions.builder().lossProbability(1.0).build());
            for (DtlsConnector c : clients) {
                c.destroy(); // close_notify lost: the server keeps the session, idle
            }
            clients.clear();
            long after = usedHeap();
            System.out.printf("server sessions: %d, heap per idle session: %d bytes%n", server.sessionCount(),
                    (after - before) / Math.max(1, server.sessionCount()));
        } finally {
            clients.forEach(DtlsConnector::destroy);
            server.destroy();
        }
    }

    private static long usedHeap() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
