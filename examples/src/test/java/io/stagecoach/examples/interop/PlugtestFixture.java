package io.stagecoach.examples.interop;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.udp.UdpConnector;
import io.stagecoach.examples.plugtest.Plugtest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The plugtest server on 127.0.0.1 (a free port) for third-party clients: 64-byte blocks, the
 * observable resources changing every {@link #NOTIFY_PERIOD} so that an observe cell sees three
 * notifications in well under a second. Also a Stagecoach client endpoint to check the server's
 * state after a peer's request.
 */
final class PlugtestFixture implements AutoCloseable {

    static final Duration NOTIFY_PERIOD = Duration.ofMillis(200);

    private final RealTimeScheduler scheduler = new RealTimeScheduler();
    private final CoapServer server;
    private final Plugtest plugtest;
    private final CoapEndpoint clientEndpoint;

    PlugtestFixture() throws Exception {
        Configuration config = Plugtest.blockSize(CoapConfig.builder(), Plugtest.DEFAULT_BLOCK_SIZE).build();
        InetSocketAddress bind = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        server = CoapServer.builder().udp(bind).config(config).scheduler(scheduler).build();
        plugtest = Plugtest.builder().scheduler(scheduler).notifyPeriod(NOTIFY_PERIOD).build().installOn(server);
        server.start();
        clientEndpoint = CoapEndpoint.builder().connector(UdpConnector.builder().bindAddress(bind).build())
                .config(config).build();
        clientEndpoint.start();
    }

    /** {@code coap://127.0.0.1:<port>} + {@code path}. */
    String uri(String path) {
        return "coap://127.0.0.1:" + server.port() + path;
    }

    /** A Stagecoach client for checking what a peer left behind. */
    CoapClient client(String path) {
        return new CoapClient(uri(path), clientEndpoint).timeout(Duration.ofSeconds(5));
    }

    int observers(String resource) {
        return ((CoapResource) server.root().child(resource)).observerCount();
    }

    /**
     * Waits until {@code resource} has {@code count} observers, at most {@code timeout}; returns
     * whether it came to that. For a peer that exits as soon as it has sent its deregistration:
     * the server handles that datagram a moment later.
     */
    boolean awaitObservers(String resource, int count, Duration timeout) throws InterruptedException {
        return Await.until(() -> observers(resource) == count, timeout);
    }

    @Override
    public void close() {
        clientEndpoint.destroy();
        server.destroy();
        plugtest.close();
        scheduler.close();
    }
}
