package io.stagecoach.bench.scenario;

import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.udp.UdpConnector;
import io.stagecoach.examples.plugtest.Plugtest;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The plugtest server of {@code ./stagecoach server} (default configuration, UDP connector) run
 * inside the benchmark's JVM on a free loopback port, so that a scenario needs no second
 * process. {@link #close()} destroys the server, the plugtest's /fibonacci executor and the
 * scheduler, and joins their threads.
 */
final class PlugtestTarget implements AutoCloseable {

    private final RealTimeScheduler scheduler;
    private final CoapServer server;
    private final Plugtest plugtest;

    private PlugtestTarget(RealTimeScheduler scheduler, CoapServer server, Plugtest plugtest) {
        this.scheduler = scheduler;
        this.server = server;
        this.plugtest = plugtest;
    }

    /** Binds 127.0.0.1 on an ephemeral port and starts serving. */
    static PlugtestTarget start() {
        RealTimeScheduler scheduler = new RealTimeScheduler();
        CoapServer server = null;
        Plugtest plugtest = null;
        try {
            UdpConnector connector = UdpConnector.builder()
                    .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
            CoapEndpoint endpoint = CoapEndpoint.builder().connector(connector).scheduler(scheduler).build();
            server = CoapServer.builder().endpoint(endpoint).build();
            plugtest = Plugtest.builder().scheduler(scheduler).build().installOn(server);
            server.start();
            return new PlugtestTarget(scheduler, server, plugtest);
        } catch (RuntimeException e) {
            if (server != null) {
                server.destroy();
            }
            if (plugtest != null) {
                plugtest.close();
            }
            scheduler.close();
            throw e;
        }
    }

    /** The bound address, e.g. {@code 127.0.0.1:41234}. */
    InetSocketAddress address() {
        return server.addresses().get(0);
    }

    @Override
    public void close() {
        try {
            server.destroy();
        } finally {
            plugtest.close();
            scheduler.close();
        }
    }
}
