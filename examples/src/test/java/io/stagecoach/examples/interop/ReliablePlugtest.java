package io.stagecoach.examples.interop;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The plugtest server on 127.0.0.1 over CoAP over TCP, TLS and WebSockets (free ports; 64-byte
 * blocks; observable resources changing every 200 ms), with a test PKI written as PEM files for
 * peers in other processes; and a helper that waits for a peer's TCP port.
 */
final class ReliablePlugtest implements AutoCloseable {

    final TestCertificates pki = TestCertificates.create();
    private final RealTimeScheduler scheduler = new RealTimeScheduler();
    private final CoapServer server;
    private final Plugtest plugtest;

    /** @param pem where the PEM files go (ca.pem, server.pem, server.key, client.pem, client.key) */
    ReliablePlugtest(Path pem) throws Exception {
        pki.write(pem);
        Configuration config = Plugtest.blockSize(CoapConfig.builder(), Plugtest.DEFAULT_BLOCK_SIZE).build();
        InetSocketAddress bind = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        server = CoapServer.builder().config(config).scheduler(scheduler).tcp(bind).tls(bind, pki.serverCredentials(false))
                .ws(bind).build();
        plugtest = Plugtest.builder().scheduler(scheduler).notifyPeriod(PlugtestFixture.NOTIFY_PERIOD).build()
                .installOn(server);
        server.start();
    }

    /** {@code SCHEME://127.0.0.1:<port>} + {@code path} for coap+tcp, coaps+tcp or coap+ws. */
    String uri(String scheme, String path) {
        for (CoapEndpoint e : server.endpoints()) {
            if (e.scheme().equals(scheme)) {
                return scheme + "://127.0.0.1:" + e.address().getPort() + path;
            }
        }
        throw new IllegalArgumentException(scheme);
    }

    int observers(String resource) {
        return ((CoapResource) server.root().child(resource)).observerCount();
    }

    /** Waits until {@code port} on loopback accepts TCP connections (the peer is ready), or fails. */
    static void awaitTcp(int port, PeerProcess peer, Duration timeout) throws Exception {
        if (!Await.until(() -> !peer.isAlive() || accepts(port), timeout) || !peer.isAlive()) {
            throw new AssertionError("peer not listening on TCP " + port + ": " + peer.describe());
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        server.destroy();
        plugtest.close();
        scheduler.close();
    }
}
