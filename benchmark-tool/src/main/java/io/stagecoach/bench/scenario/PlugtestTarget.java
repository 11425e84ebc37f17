package io.stagecoach.bench.scenario;

import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.network.CoapEndpointBuilder;
import io.stagecoach.core.network.faults.FaultInjector;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.server.CoapServerBuilder;
import io.stagecoach.core.server.ServerCounters;
import io.stagecoach.elements.ConnectorCounters;
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
    private final UdpConnector connector;

    private PlugtestTarget(RealTimeScheduler scheduler, CoapServer server, Plugtest plugtest, UdpConnector connector) {
        this.scheduler = scheduler;
        this.server = server;
        this.plugtest = plugtest;
        this.connector = connector;
    }

    /** Binds 127.0.0.1 on an ephemeral port and starts serving. */
    static PlugtestTarget start() {
        return start(null);
    }

    /**
     * As {@link #start()}, with {@code faults} (or none when {@code null}) installed in the
     * endpoint (receiver, layer) and the server (handlers, executor), as {@code ./stagecoach
     * server --faults} does.
     */
    static PlugtestTarget start(FaultInjector faults) {
        RealTimeScheduler scheduler = new RealTimeScheduler();
        CoapServer server = null;
        Plugtest plugtest = null;
        try {
            UdpConnector connector = UdpConnector.builder()
                    .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
            CoapEndpointBuilder eb = CoapEndpoint.builder().connector(connector).scheduler(scheduler);
            CoapServerBuilder sb = CoapServer.builder();
            if (faults != null) {
                eb.faults(faults);
                sb.faults(faults);
            }
            server = sb.endpoint(eb.build()).build();
            plugtest = Plugtest.builder().scheduler(scheduler).build().installOn(server);
            server.start();
            return new PlugtestTarget(scheduler, server, plugtest, connector);
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

    /** The server's one endpoint (its exchange store, dedup store). */
    CoapEndpoint endpoint() {
        return server.getEndpoints().get(0);
    }

    /** Counters of the UDP connector under the fault wrapper (receiver restarts). */
    ConnectorCounters connectorCounters() {
        return connector.counters();
    }

    /** Counters of the resource stage (handler errors, 5.03 rejections). */
    ServerCounters serverCounters() {
        return server.counters().get(0);
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
