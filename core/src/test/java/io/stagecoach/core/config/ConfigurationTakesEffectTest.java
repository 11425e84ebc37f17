package io.stagecoach.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every documented key family takes effect through the library API alone: a properties file
 * loaded into a {@link Configuration}, handed to the server builder, reaches the UDP sockets and
 * threads it creates ({@code udp.*}) and the protocol stage ({@code coap.*}); the client's
 * default endpoint takes its configuration from {@link CoapClient#configureDefaultEndpoint} or
 * from system properties; the builder's clock reaches its connectors.
 */
class ConfigurationTakesEffectTest {

    private static final InetSocketAddress LOOPBACK_ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private CoapServer server;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.destroy();
        }
        CoapClient.configureDefaultEndpoint(null);
        CoapClient.shutdownDefaultEndpoint();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    @Test
    void udpKeysFromAPropertiesFileReachTheSocketsAndThreadsTheServerBuilderCreates(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("stagecoach.properties");
        Files.writeString(file, String.join("\n",
                "udp.connector=JDK", // the keys below are the JDK connector's: its threads, its socket
                "udp.receive-buffer=64KiB",
                "udp.send-buffer=48KiB",
                "udp.receiver-threads=3",
                "udp.sender-threads=2",
                "udp.outbound-queue-capacity=777",
                "udp.max-datagram-size=1500",
                "coap.protocol-threads=3", ""));
        Configuration config = CoapConfig.builder().loadFile(file).build();
        long recvBefore = threadsNamed("stagecoach-udp-recv-");
        long protocolBefore = threadsNamed("stagecoach-protocol-");
        server = CoapServer.builder().config(config).udp(LOOPBACK_ANY).build()
                .add(CoapResource.named("x").onGet(ex -> ex.respond("y"))).start();

        UdpConnector udp = (UdpConnector) server.endpoints().get(0).connector();
        // Linux reports twice the size requested; the 4 MiB default would read back far larger
        int rcvbuf = udp.socketOption(StandardSocketOptions.SO_RCVBUF);
        assertTrue(rcvbuf >= 64 * 1024 && rcvbuf <= 2 * 64 * 1024, "SO_RCVBUF read back: " + rcvbuf);
        int sndbuf = udp.socketOption(StandardSocketOptions.SO_SNDBUF);
        assertTrue(sndbuf >= 48 * 1024 && sndbuf <= 2 * 48 * 1024, "SO_SNDBUF read back: " + sndbuf);
        assertEquals(3, threadsNamed("stagecoach-udp-recv-") - recvBefore, "udp.receiver-threads");
        assertEquals(777, udp.config().outboundQueueCapacity());
        assertEquals(1500, udp.config().maxDatagramSize());
        assertEquals(2, udp.config().senderThreads());
        try (CoapClient client = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/x")
                .config(CoapConfig.builder().set(CoapConfig.PROTOCOL_THREADS, 0).build()).build()) {
            for (int i = 0; i < 3; i++) {
                client.get(); // a pool starts one core thread per task until it has them all
            }
        }
        assertEquals(3, threadsNamed("stagecoach-protocol-") - protocolBefore, "coap.protocol-threads");
    }

    /**
     * Without udp.connector a server's UDP endpoint is Netty's epoll connector exactly where the
     * native transport loads, with the Netty keys applied; a client's own endpoint stays on the JDK
     * connector unless the key is set.
     */
    @Test
    void theDefaultUdpConnectorIsNettyEpollWhereItLoadsAndClientsKeepTheJdkConnector() throws IOException {
        assertEquals(NettyUdpConnector.isEpollAvailable(), CoapEndpointBuilder.autoUsesNetty());
        Configuration config = CoapConfig.builder().set(UdpConfig.NETTY_CHANNELS, 2).set(UdpConfig.BATCH_SIZE, 8).build();
        server = CoapServer.builder().config(config).udp(LOOPBACK_ANY).build()
                .add(CoapResource.named("x").onGet(ex -> ex.respond("y"))).start();
        Connector connector = server.endpoints().get(0).connector();
        if (NettyUdpConnector.isEpollAvailable()) {
            NettyUdpConnector netty = assertInstanceOf(NettyUdpConnector.class, connector);
            assertEquals(2, netty.channelCount(), "udp.netty-channels");
            assertTrue(netty.isBatched(), "udp.batch-size 8: recvmmsg/sendmmsg");
        } else {
            assertInstanceOf(UdpConnector.class, connector, "the portable fallback");
        }
        String uri = "coap://127.0.0.1:" + server.port() + "/x";
        try (CoapClient client = CoapClient.builder(uri).build()) {
            assertEquals("y", client.get().payloadText());
            assertInstanceOf(UdpConnector.class, client.endpoint().connector(), "a client keeps the JDK connector");
        }
        try (CoapClient client = CoapClient.builder(uri)
                .config(CoapConfig.builder().set(UdpConfig.CONNECTOR, UdpConnectorChoice.NETTY).build()).build()) {
            assertEquals("y", client.get().payloadText());
            assertInstanceOf(NettyUdpConnector.class, client.endpoint().connector(), "udp.connector=NETTY");
        }
        assertInstanceOf(UdpConnector.class, new CoapClient(uri).endpoint().connector(), "the default client endpoint");
        server.destroy();
        server = CoapServer.builder().udp(LOOPBACK_ANY, UdpConnectorChoice.JDK).build().start();
        assertInstanceOf(UdpConnector.class, server.endpoints().get(0).connector(), "udp(bind, JDK)");
    }

    @Test
    void definitionsAreTheOneSourceOfConnectorDefaults() {
        var defaults = UdpConnector.builder().buildConfig();
        assertEquals(UdpConfig.OUTBOUND_QUEUE_CAPACITY.defaultValue(), defaults.outboundQueueCapacity());
        assertEquals(UdpConfig.SEND_BUFFER.defaultValue(), defaults.sendBufferSize());
        assertEquals(UdpConfig.RECEIVE_BUFFER.defaultValue(), defaults.receiveBufferSize());
        assertEquals(UdpConfig.MAX_DATAGRAM_SIZE.defaultValue(), defaults.maxDatagramSize());
        assertEquals(UdpConfig.NETTY_CHANNELS.defaultValue(), defaults.nettyChannels());
    }

    @Test
    void theBuildersClockStampsTheDatagramsOfTheConnectorsItCreates() {
        List<Long> receiveNanos = new CopyOnWriteArrayList<>();
        // a clock 10 hours ahead of System.nanoTime: a connector on the system clock would stamp
        // datagrams with readings far below it
        long offset = Duration.ofHours(10).toNanos();
        try (RealTimeScheduler timer = new RealTimeScheduler()) {
            Scheduler ahead = new Scheduler() {
                @Override
                public long nanoTime() {
                    return System.nanoTime() + offset;
                }

                @Override
                public Cancellable schedule(Runnable task, Duration delay) {
                    return timer.schedule(task, delay);
                }

                @Override
                public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
                    return timer.scheduleAtFixedRate(task, initialDelay, period);
                }
            };
            server = CoapServer.builder().udp(LOOPBACK_ANY).scheduler(ahead)
                    .interceptor(new MessageInterceptor() {
                        @Override
                        public void receiveRequest(Request request) {
                            receiveNanos.add(request.receiveNanos());
                        }
                    })
                    .build()
                    .add(CoapResource.named("x").onGet(ex -> ex.respond("y")))
                    .start();
            long before = ahead.nanoTime();
            assertEquals("y", new CoapClient("coap://127.0.0.1:" + server.port() + "/x").get().payloadText());
            assertTrue(receiveNanos.get(0) >= before, "stamped on the builder's clock: " + receiveNanos);
            server.destroy();
            server = null;
        }
    }

    @Test
    void theDefaultClientEndpointTakesItsConfigurationFromTheApiAndFromSystemProperties() {
        List<Integer> tokenLengths = new CopyOnWriteArrayList<>();
        server = CoapServer.builder().udp(LOOPBACK_ANY)
                .interceptor(new MessageInterceptor() {
                    @Override
                    public void receiveRequest(Request request) {
                        tokenLengths.add(request.token().length());
                    }
                })
                .build()
                .add(CoapResource.named("x").onGet(ex -> ex.respond("y")))
                .start();
        String uri = "coap://127.0.0.1:" + server.port() + "/x";

        CoapClient.configureDefaultEndpoint(CoapConfig.builder().set(CoapConfig.TOKEN_LENGTH, 3).build());
        CoapClient.shutdownDefaultEndpoint();
        new CoapClient(uri).get();
        assertEquals(List.of(3), tokenLengths, "coap.token-length from configureDefaultEndpoint");

        String key = "stagecoach.coap.token-length";
        String saved = System.getProperty(key);
        System.setProperty(key, "5");
        try {
            CoapClient.configureDefaultEndpoint(null); // back to: defaults plus system properties
            CoapClient.shutdownDefaultEndpoint();
            CoapEndpoint e = new CoapClient(uri).endpoint();
            new CoapClient(uri).get();
            assertEquals(List.of(3, 5), tokenLengths, "coap.token-length from -Dstagecoach.coap.token-length");
            assertEquals(5, e.config().get(CoapConfig.TOKEN_LENGTH));
        } finally {
            if (saved == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, saved);
            }
        }
    }
}
