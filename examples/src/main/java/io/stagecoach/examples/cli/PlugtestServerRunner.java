package io.stagecoach.examples.cli;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.server.CoapServerBuilder;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.dtls.DtlsConfig;
import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.dtls.DtlsWarmUp;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.udp.BindFamily;
import io.stagecoach.examples.explorer.ExplorerPage;
import io.stagecoach.examples.faults.FaultInjector;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running plugtest server as {@code ./stagecoach server} starts it: the configuration (file,
 * then flags), one endpoint on the chosen connector (and one per further transport asked for), one real-time scheduler shared by endpoint and
 * resources. {@link #close()} releases all of it and is idempotent (the shutdown hook and the
 * signal path may both call it).
 */
final class PlugtestServerRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PlugtestServerRunner.class);

    private final RealTimeScheduler scheduler;
    private final CoapServer server;
    private final Plugtest plugtest;
    private final String connectorName;
    private final Configuration config;
    private boolean closed;

    private PlugtestServerRunner(RealTimeScheduler scheduler, CoapServer server, Plugtest plugtest,
            String connectorName, Configuration config) {
        this.scheduler = scheduler;
        this.server = server;
        this.plugtest = plugtest;
        this.connectorName = connectorName;
        this.config = config;
    }

    /**
     * {@code --dtls-warmup N}: N PSK handshakes against a throwaway server of the same DTLS settings
     * before the real one binds (docs/dtls.md, "Start-up warm-up"); its result goes to the log.
     */
    private static void warmUpDtls(ServerOptions o, Configuration config, InetSocketAddress bind) throws IOException {
        DtlsConnectorConfig.Builder template = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).apply(config)
                .bindAddress(bind);
        CliCredentials.dtlsServer(o).accept(template);
        DtlsWarmUp.Result r = DtlsWarmUp.of(template.buildConfig(), o.dtlsWarmUp, DtlsWarmUp.DEFAULT_CLIENTS,
                Duration.ofSeconds(60)).run();
        LOG.info("DTLS warm-up: {} handshakes ({} failed) in {} ms", r.completed(), r.failed(), r.elapsed().toMillis());
    }

    /**
     * Builds and starts the server.
     *
     * @throws IOException when the config file cannot be read
     * @throws IllegalArgumentException for a bad configuration value (the message names the key)
     * @throws java.io.UncheckedIOException when the port cannot be bound
     */
    static PlugtestServerRunner start(ServerOptions o) throws IOException {
        Configuration config = configuration(o);
        // no --bind: every interface, dual-stack [::]; --bind 127.0.0.1 is an IPv4 socket (BindFamily)
        InetSocketAddress bind = o.bind == null ? BindFamily.everyInterface(o.port) : new InetSocketAddress(o.bind, o.port);
        RealTimeScheduler scheduler = new RealTimeScheduler();
        CoapServerBuilder sb = CoapServer.builder().config(config).scheduler(scheduler);
        UdpConnectorChoice choice = switch (o.connector) {
            case "netty" -> UdpConnectorChoice.NETTY;
            case "jdk" -> UdpConnectorChoice.JDK;
            // a udp.connector from the file or a system property, else AUTO
            default -> config.get(UdpConfig.CONNECTOR);
        };
        sb.udp(bind, choice);
        boolean netty = choice == UdpConnectorChoice.NETTY
                || choice == UdpConnectorChoice.AUTO && CoapEndpointBuilder.autoUsesNetty();
        String name = netty ? (NettyUdpConnector.isEpollAvailable() ? "netty-epoll" : "netty-nio (epoll unavailable)")
                : "udp";
        if (choice == UdpConnectorChoice.AUTO) {
            name += ", default";
        }
        if (!netty) {
            name += ", receivers " + config.get(UdpConfig.RECEIVER_THREADS) + ", senders "
                    + config.get(UdpConfig.SENDER_THREADS);
        } else if (NettyUdpConnector.isEpollAvailable()) {
            name += ", channels " + config.get(UdpConfig.NETTY_CHANNELS) + ", batch " + config.get(UdpConfig.BATCH_SIZE);
        }
        if (o.dtlsPort >= 0) {
            InetSocketAddress dtlsBind = o.bind == null ? new InetSocketAddress(o.dtlsPort)
                    : new InetSocketAddress(o.bind, o.dtlsPort);
            sb.dtls(dtlsBind, CliCredentials.dtlsServer(o));
            if (o.dtlsWarmUp > 0) {
                warmUpDtls(o, config, dtlsBind);
            }
        }
        if (o.tcpPort >= 0) {
            sb.tcp(o.bind == null ? new InetSocketAddress(o.tcpPort) : new InetSocketAddress(o.bind, o.tcpPort));
        }
        if (o.tlsPort >= 0) {
            sb.tls(o.bind == null ? new InetSocketAddress(o.tlsPort) : new InetSocketAddress(o.bind, o.tlsPort),
                    TlsCredentials.fromPem(o.cert, o.key, o.ca));
        }
        if (o.wsPort >= 0) {
            sb.ws(o.bind == null ? new InetSocketAddress(o.wsPort) : new InetSocketAddress(o.bind, o.wsPort));
            // The explorer page on the same port (docs/explorer.md); the other endpoints ignore it.
            ExplorerPage explorer = ExplorerPage.load();
            sb.configureEndpoints(b -> b.httpResponder(explorer));
        }
        if (o.faultRate > 0) {
            FaultInjector.Builder fb = FaultInjector.builder().seed(o.faultSeed);
            o.faultKinds.forEach(k -> fb.rate(k, o.faultRate));
            fb.build().installOn(sb);
            name += ", faults " + o.faultRate + " " + o.faultKinds;
        }
        Plugtest plugtest = null;
        CoapServer server = null;
        try {
            server = sb.build();
            Plugtest.Builder pb = Plugtest.builder().scheduler(scheduler).notifyPeriod(o.notifyPeriod).nodeId(o.nodeId);
            if (o.obsResetSecret != null) {
                pb.obsResetSecret(o.obsResetSecret);
            }
            plugtest = pb.build().installOn(server);
            server.start();
            return new PlugtestServerRunner(scheduler, server, plugtest, name, config);
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

    /** File first, then system properties {@code stagecoach.<key>}, then the flags. */
    static Configuration configuration(ServerOptions o) throws IOException {
        Configuration.Builder b = CoapConfig.builder();
        if (o.config != null) {
            b.loadFile(o.config);
        }
        b.applySystemProperties();
        Configuration fromFile = b.build();
        // The plugtest's 64-byte blocks unless the file chose a block size and no flag overrides it.
        if (o.blockSizeGiven || !fromFile.isSet(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE)) {
            Plugtest.blockSize(b, o.blockSize);
        }
        if (o.receivers > 0) {
            b.set(UdpConfig.RECEIVER_THREADS, o.receivers);
        }
        if (o.senders > 0) {
            b.set(UdpConfig.SENDER_THREADS, o.senders);
        }
        if (o.protocolThreads >= 0) {
            b.set(CoapConfig.PROTOCOL_THREADS, o.protocolThreads);
        }
        if (o.nodeId > 0) {
            // the first byte of every DTLS connection ID this node issues (docs/cluster.md)
            b.set(DtlsConfig.NODE_ID, o.nodeId);
        }
        if (o.cidLength >= 0) {
            b.set(DtlsConfig.CID_LENGTH, o.cidLength);
        }
        return b.build();
    }

    /**
     * The ready lines: {@link #readyLine()}, then {@code listening on SCHEME://ADDR:PORT} for each
     * further transport (coaps, coap+tcp, coaps+tcp, coap+ws), in that order, and with coap+ws
     * {@code explorer at http://ADDR:PORT/} last.
     */
    List<String> readyLines() {
        List<String> lines = new ArrayList<>();
        lines.add(readyLine());
        List<CoapEndpoint> endpoints = server.endpoints();
        String explorer = null;
        for (int i = 1; i < endpoints.size(); i++) {
            CoapEndpoint e = endpoints.get(i);
            lines.add("listening on " + e.scheme() + "://" + hostPort(e.address()));
            if (e.scheme().equals("coap+ws")) {
                explorer = "explorer at http://" + browsable(e.address()) + "/ (open it in a browser; docs/explorer.md)";
            }
        }
        if (explorer != null) {
            lines.add(explorer);
        }
        return lines;
    }

    /**
     * As {@link #hostPort}, with the loopback address for a wildcard one: a browser cannot open
     * 0.0.0.0, and a socket bound to the wildcard (IPv4 and, dual-stack, IPv6) accepts loopback.
     */
    private static String browsable(InetSocketAddress a) {
        return hostPort(a.getAddress().isAnyLocalAddress()
                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), a.getPort()) : a);
    }

    /** The bound port of the endpoint of {@code scheme} (e.g. {@code coap+tcp}), or -1. */
    int port(String scheme) {
        for (CoapEndpoint e : server.endpoints()) {
            if (e.scheme().equals(scheme)) {
                return e.address().getPort();
            }
        }
        return -1;
    }

    private static String hostPort(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        if (a.getAddress() instanceof Inet6Address) {
            // Compressed forms for the two addresses people type (RFC 5952); others as the JDK prints them.
            host = "[" + (a.getAddress().isAnyLocalAddress() ? "::" : a.getAddress().isLoopbackAddress() ? "::1" : host) + "]";
        }
        return host + ":" + a.getPort();
    }

    /** {@code listening on coap://ADDR:PORT (connector NAME, ...)} with the bound port. */
    String readyLine() {
        InetSocketAddress a = server.addresses().get(0);
        return "listening on coap://" + hostPort(a) + " (connector " + connectorName
                + ", protocol threads " + config.get(CoapConfig.PROTOCOL_THREADS)
                + ", block size " + config.get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE)
                + ", notify every " + plugtest.notifyPeriod().toMillis() + " ms"
                + (plugtest.nodeId() > 0 ? ", node " + plugtest.nodeId() : "") + ")";
    }

    CoapServer server() {
        return server;
    }

    int port() {
        return server.port();
    }

    /** Observe relations of the top-level resource {@code name} (for tests). */
    int observers(String name) {
        return ((CoapResource) server.root().child(name)).observerCount();
    }

    /**
     * Drains the server for at most {@code timeout} ({@link CoapServer#drain}): new requests get
     * 5.03, observers their final 5.03, what is in flight finishes. Returns whether everything
     * finished; the server still runs until {@link #close()}.
     */
    boolean drain(Duration timeout) {
        try {
            return server.drain(timeout).get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | IllegalStateException e) {
            LOG.warn("drain failed: {}", e.toString());
            return false;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.destroy();
        plugtest.close();
        scheduler.close();
    }
}
