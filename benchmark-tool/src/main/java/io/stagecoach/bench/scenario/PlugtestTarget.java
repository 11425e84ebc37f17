package io.stagecoach.bench.scenario;

import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.server.CoapServerBuilder;
import io.stagecoach.core.server.ServerCounters;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.examples.faults.FaultInjector;
import io.stagecoach.examples.plugtest.Plugtest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicReference;

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
    private final Connector connector;

    private PlugtestTarget(RealTimeScheduler scheduler, CoapServer server, Plugtest plugtest, Connector connector) {
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
            AtomicReference<Connector> udp = new AtomicReference<>();
            CoapServerBuilder sb = CoapServer.builder().scheduler(scheduler)
                    .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .configureEndpoints(b -> b.wrapConnector(c -> {
                        udp.set(c); // the UDP connector itself, under the fault wrapper if any
                        return c;
                    }));
            if (faults != null) {
                faults.installOn(sb);
            }
            server = sb.build();
            plugtest = Plugtest.builder().scheduler(scheduler).build().installOn(server);
            server.start();
            return new PlugtestTarget(scheduler, server, plugtest, udp.get());
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
        return server.endpoints().get(0);
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
