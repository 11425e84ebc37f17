package io.stagecoach.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** CoapServer's builder choices over UDP loopback: several endpoints, executors, Netty, bind failures. */
class CoapServerBuilderTest {

    private final InetSocketAddress anyLoopbackPort = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private CoapEndpoint client;

    private String get(CoapServer server, int endpoint, String path) throws Exception {
        if (client == null) {
            client = CoapEndpoint.builder().connector(UdpConnector.builder().bindAddress(anyLoopbackPort).build()).build();
            client.start();
        }
        int port = server.addresses().get(endpoint).getPort();
        return new CoapClient("coap://127.0.0.1:" + port + path, client).get().payloadText();
    }

    @AfterEach
    void noThreadLeft() {
        if (client != null) {
            client.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void oneTreeServedOnTwoEndpoints() throws Exception {
        CoapServer server = CoapServer.builder().udp(anyLoopbackPort).udp(anyLoopbackPort).build()
                .add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));
        server.start();
        try {
            assertEquals(2, server.endpoints().size());
            assertEquals("world", get(server, 0, "/hello"), "GET /hello on the first endpoint");
            assertEquals("world", get(server, 1, "/hello"), "GET /hello on the second endpoint");
            assertEquals(1, server.counters().get(1).delivered(), "the second endpoint's deliverer counted its request");
        } finally {
            server.destroy();
        }
    }

    @Test
    void protocolExecutorAndOwnedResourceThreads() throws Exception {
        ExecutorService protocol = Executors.newSingleThreadExecutor(r -> new Thread(r, "app-protocol"));
        CoapServer server = CoapServer.builder().udp(anyLoopbackPort).protocolExecutor(protocol)
                .resourceThreads(2, 10).build()
                .add(CoapResource.named("where").onGet(ex -> ex.respond(Thread.currentThread().getName())),
                        CoapResource.named("inline").setExecutor(Runnable::run)
                                .onGet(ex -> ex.respond(Thread.currentThread().getName())));
        server.start();
        try {
            assertTrue(get(server, 0, "/where").startsWith("stagecoach-resource-server-"),
                    "default resource executor of the server");
            assertEquals("app-protocol", get(server, 0, "/inline"),
                    "a resource's own direct executor runs on the application's protocol executor");
        } finally {
            server.destroy();
            protocol.shutdownNow();
            assertTrue(protocol.awaitTermination(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void epollEndpointWorksWithNettyOrFailsClearlyWithout() throws Exception {
        boolean netty;
        try {
            Class.forName("io.netty.channel.Channel");
            netty = true;
        } catch (ClassNotFoundException e) {
            netty = false;
        }
        if (!netty) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> CoapServer.builder().netty(anyLoopbackPort).build());
            assertTrue(e.getMessage().contains("Netty"), e.getMessage());
            return;
        }
        CoapServer server = CoapServer.builder().netty(anyLoopbackPort).build()
                .add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));
        server.start();
        try {
            assertEquals("world", get(server, 0, "/hello"));
        } finally {
            server.destroy();
        }
    }

    @Test
    void portInUseFailsStartAndReleasesTheOtherEndpoints() {
        CoapServer first = CoapServer.builder().udp(anyLoopbackPort).build().start();
        InetSocketAddress taken = first.addresses().get(0);
        CoapServer second = CoapServer.builder().udp(anyLoopbackPort).udp(taken).build();
        try {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, second::start, "bind " + taken + " twice");
            assertTrue(e.getMessage().contains("cannot start endpoint"), e.getMessage());
            assertTrue(!second.isRunning());
        } finally {
            second.destroy();
            first.destroy();
        }
    }
}
