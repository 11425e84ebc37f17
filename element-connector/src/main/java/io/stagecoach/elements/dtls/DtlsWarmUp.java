package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.UDPTransport;

/**
 * Full PSK handshakes over loopback inside this process, run once before a server reports ready,
 * so that the JIT has compiled the server's handshake path (the record screen, the cookie, the
 * hand-offs to the handshake threads, BouncyCastle's handshake and crypto) before the first real
 * client arrives. A JVM otherwise compiles that code while it serves its first handshakes, on the
 * same cores (docs/dtls.md, "Start-up warm-up").
 *
 * <p>It is a start-up trade offered as an option, not done by default: the handshakes run against a
 * throwaway server connector on {@code 127.0.0.1}, port 0, with the cipher suites, limits and
 * thread settings of the real server's configuration and an identity and random secret of its own
 * (the real {@link PskStore} — perhaps a remote registry — is never asked), from BouncyCastle
 * clients in this process that each use a fresh socket per handshake and end it with close_notify
 * (RFC 5246 §7.2.1), the pattern of a device that connects, talks and leaves. The throwaway
 * connector is stopped before {@link #run} returns: the warm-up leaves no socket, thread or
 * session behind, only compiled code. The client side's work is a cost of the warm-up only.
 *
 * <p>Immutable; {@link #run} may be called more than once.
 */
public final class DtlsWarmUp {

    /** Concurrent warm-up clients the launchers use: several handshakes interleave, as under load. */
    public static final int DEFAULT_CLIENTS = 4;

    private static final String IDENTITY = "stagecoach-warm-up";

    private final DtlsConnectorConfig template;
    private final int handshakes;
    private final int clients;
    private final Duration limit;

    private DtlsWarmUp(DtlsConnectorConfig template, int handshakes, int clients, Duration limit) {
        this.template = template;
        this.handshakes = handshakes;
        this.clients = clients;
        this.limit = limit;
    }

    /**
     * A warm-up for a server of {@code template}'s configuration: {@code handshakes} in total from
     * {@code clients} concurrent clients, stopped early at {@code limit}.
     *
     * @throws IllegalArgumentException if {@code template} is not a server's or offers no PSK cipher
     *     suite, or a count is negative / under one client
     */
    public static DtlsWarmUp of(DtlsConnectorConfig template, int handshakes, int clients, Duration limit) {
        if (template.role() != DtlsConnectorConfig.Role.SERVER) {
            throw new IllegalArgumentException("a warm-up needs a server's configuration");
        }
        if (firstPsk(template) == null) {
            throw new IllegalArgumentException("a warm-up needs a PSK cipher suite, the server has " + template.cipherSuites());
        }
        if (handshakes < 0 || clients < 1) {
            throw new IllegalArgumentException("handshakes >= 0 and clients >= 1, got " + handshakes + ", " + clients);
        }
        if (limit.isNegative()) {
            throw new IllegalArgumentException("negative limit " + limit);
        }
        return new DtlsWarmUp(template, handshakes, clients, limit);
    }

    /** What a warm-up did: handshakes completed and failed, and its wall-clock time. */
    public record Result(int completed, int failed, Duration elapsed) {
    }

    /**
     * Runs the handshakes and stops the throwaway server; returns when all are done, at the limit,
     * or when the calling thread is interrupted (the interrupt flag is kept).
     *
     * @throws IOException if the throwaway server cannot bind on loopback
     */
    public Result run() throws IOException {
        long start = System.nanoTime();
        if (handshakes == 0) {
            return new Result(0, 0, Duration.ZERO);
        }
        byte[] secret = new byte[16];
        SecureRandom random = new SecureRandom();
        random.nextBytes(secret);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        DtlsCipherSuite suite = firstPsk(template);
        // all warm-up clients share one source address: the per-source budgets become the totals
        DtlsConnector server = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(new InetSocketAddress(loopback, 0))
                .pskStore(PskStore.of(Map.of(IDENTITY, secret)))
                .cipherSuites(template.cipherSuites().stream().filter(DtlsCipherSuite::isPsk).toArray(DtlsCipherSuite[]::new))
                .receiverThreads(template.receiverThreads())
                .handshakeThreads(template.handshakeThreads())
                .maxHandshakes(template.maxHandshakes())
                .maxHandshakesPerSource(template.maxHandshakes())
                .maxHelloRate(template.maxHelloRate())
                .maxHelloRatePerSource(template.maxHelloRate())
                .helloWorkShare(template.helloWorkShare())
                .handshakeTimeout(template.handshakeTimeout())
                .retransmissionTimeout(template.retransmissionTimeout())
                .resumptionCacheSize(template.resumptionCacheSize())
                .cidLength(template.cidLength())
                .maxDatagramSize(template.maxDatagramSize())
                .maxRecordSize(template.maxRecordSize())
                .build();
        DtlsConnectorConfig client = DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT)
                .pskCredentials(PskCredentials.of(IDENTITY, secret))
                .cipherSuites(suite)
                .cidLength(0)
                .handshakeTimeout(template.handshakeTimeout())
                .retransmissionTimeout(template.retransmissionTimeout())
                .buildConfig();
        long deadline = start + limit.toNanos();
        AtomicInteger left = new AtomicInteger(handshakes);
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        server.start();
        List<Thread> threads = new ArrayList<>();
        try {
            InetSocketAddress target = new InetSocketAddress(loopback, server.getAddress().getPort());
            for (int i = 0; i < clients; i++) {
                Thread t = new Thread(() -> handshakeLoop(client, target, deadline, left, completed, failed),
                        "stagecoach-dtls-warm-up-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            left.set(0);
            Thread.currentThread().interrupt();
        } finally {
            server.stop();
            server.destroy();
        }
        return new Result(completed.get(), failed.get(), Duration.ofNanos(System.nanoTime() - start));
    }

    private static void handshakeLoop(DtlsConnectorConfig client, InetSocketAddress target, long deadline,
            AtomicInteger left, AtomicInteger completed, AtomicInteger failed) {
        DtlsCrypto crypto = new DtlsCrypto(new SecureRandom());
        while (left.getAndDecrement() > 0 && System.nanoTime() - deadline < 0) {
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(target.getAddress(), 0))) {
                socket.connect(target);
                long handshakeDeadline = System.nanoTime() + client.handshakeTimeout().toNanos();
                ClientPeer peer = new ClientPeer(crypto, client, null, target, null, handshakeDeadline);
                DTLSTransport dtls = new DTLSClientProtocol().connect(peer, new UDPTransport(socket, 1500));
                DtlsCrypto.takeProtection(); // the client's copy of the keys, not needed here
                dtls.close();
                completed.incrementAndGet();
            } catch (IOException | RuntimeException e) {
                failed.incrementAndGet();
            }
        }
    }

    private static DtlsCipherSuite firstPsk(DtlsConnectorConfig config) {
        for (DtlsCipherSuite s : config.cipherSuites()) {
            if (s.isPsk()) {
                return s;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "DtlsWarmUp[" + handshakes + " handshakes, " + clients + " clients, limit " + limit + "]";
    }
}
