package io.stagecoach.core.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.server.BoundedExecutors;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.testutil.TestConfigs;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CoapClient's synchronous API against CoapServer over real UDP on loopback, with real threads:
 * every method and code, which thread ran each handler, 5.03 from a full bounded executor, and
 * that destroy() leaves no thread behind. Waits are bounded by the clients' own timeouts; nothing
 * sleeps.
 */
class ClientServerUdpTest {

    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final TestResources resources = new TestResources();
    private final ThreadPoolExecutor sensorsExecutor = BoundedExecutors.singleThread("sensors", 4);
    private CoapServer server;
    private CoapEndpoint clientEndpoint;
    private String base;

    @BeforeEach
    void start() throws Exception {
        // A protocol pool asked for explicitly: on one core the default runs the protocol inline,
        // and handlersRunOnTheInheritedExecutorOrInline names the protocol thread.
        server = CoapServer.builder().udp(new InetSocketAddress(loopback, 0)).config(TestConfigs.protocolThreads(2))
                .build();
        resources.installOn(server);
        server.add(CoapResource.named("sensors").setExecutor(sensorsExecutor)
                .add(CoapResource.named("temp").onGet(ex -> ex.respond(Thread.currentThread().getName()))));
        server.start();
        base = "coap://" + loopback.getHostAddress() + ":" + server.port();
        clientEndpoint = CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(loopback, 0)).build()).build();
        clientEndpoint.start();
    }

    @AfterEach
    void stop() throws Exception {
        assertEquals(0, clientEndpoint.openExchanges(), "client exchanges left");
        clientEndpoint.destroy();
        server.destroy();
        sensorsExecutor.shutdownNow();
        assertTrue(sensorsExecutor.awaitTermination(5, TimeUnit.SECONDS));
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private CoapClient client(String path) {
        return new CoapClient(base + path, clientEndpoint).timeout(Duration.ofSeconds(5));
    }

    @Test
    void boundPortIsReal() {
        assertNotEquals(0, server.port(), "port 0 became a real port");
        assertEquals(server.port(), server.addresses().get(0).getPort());
        assertEquals(1, server.endpoints().size());
    }

    @Test
    void everyMethodAndCodeSynchronously() {
        assertEquals("world", client("/hello").get().payloadText(), "GET /hello");
        CoapResponse created = client("/items").post("a", ContentFormat.TEXT_PLAIN);
        assertEquals(Code.CREATED, created.code(), "POST /items");
        assertEquals("/items/1", created.location());
        assertEquals(Code.DELETED, client(created.location()).delete().code(), "DELETE " + created.location());
        CoapClient store = client("/store");
        assertEquals(Code.CHANGED, store.put("v", ContentFormat.TEXT_PLAIN).code(), "PUT /store");
        assertEquals(Code.CHANGED, store.patch("w".getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN).code(), "PATCH");
        assertEquals("vw", store.get().payloadText());
        assertEquals(Code.CHANGED, store.ipatch("z".getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN).code(), "iPATCH");
        assertEquals("fetched:k", store.fetch("k".getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN).payloadText(), "FETCH");
        assertEquals(Code.NOT_FOUND, client("/nowhere").get().code());
        assertEquals(Code.METHOD_NOT_ALLOWED, client("/hello").delete().code());
        assertEquals(Code.NOT_ACCEPTABLE, client("/json").get(ContentFormat.TEXT_PLAIN).code());
        assertEquals(Code.INTERNAL_SERVER_ERROR, client("/boom").get().code());
        assertEquals("world", client("/hello").get().payloadText(), "still answering after the 5.00");
        assertTrue(client("/hello").get().rtt().compareTo(Duration.ZERO) > 0, "RTT measured");
    }

    @Test
    void handlersRunOnTheInheritedExecutorOrInline() {
        String onSensors = client("/sensors/temp").get().payloadText();
        assertTrue(onSensors.startsWith(BoundedExecutors.THREAD_PREFIX + "sensors-"),
                "/sensors/temp inherits /sensors' executor, ran on " + onSensors);
        String inline = client("/where").get().payloadText();
        assertTrue(inline.startsWith("stagecoach-protocol-"), "no executor on the path: protocol thread, ran on " + inline);
    }

    @Test
    void fullBoundedExecutorAnswers503WithMaxAge() throws Exception {
        ThreadPoolExecutor one = BoundedExecutors.singleThread("slow", 0);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        try {
            server.add(CoapResource.named("slow").setExecutor(one).onGet(ex -> {
                entered.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ex.respond("done");
            }));
            CompletableFuture<CoapResponse> first = client("/slow").getAsync();
            assertTrue(entered.await(5, TimeUnit.SECONDS), "first request occupies the only thread");
            CoapResponse second = client("/slow").get();
            assertEquals(Code.SERVICE_UNAVAILABLE, second.code(), "second request finds the executor full");
            assertTrue(second.options().has(OptionNumber.MAX_AGE), "5.03 tells when to retry");
            release.countDown();
            assertEquals("done", first.get(5, TimeUnit.SECONDS).payloadText());
        } finally {
            release.countDown();
            one.shutdownNow();
            assertTrue(one.awaitTermination(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void separateResponseFromAnotherThread() throws Exception {
        CompletableFuture<CoapResponse> f = client("/separate").getAsync();
        CoapExchange pending = resources.separate.poll(5, TimeUnit.SECONDS); // a blocking wait, not a busy spin
        assertTrue(pending != null && pending.isAccepted(), "handler accepted the request");
        pending.respond("later");
        CoapResponse r = f.get(5, TimeUnit.SECONDS);
        assertEquals("later", r.payloadText());
        assertEquals(Type.CON, r.advanced().type());
    }

    @Test
    void nonPingDiscoverAndTimeout() {
        CoapResponse non = client("/hello").useNONs().get();
        assertEquals(Type.NON, non.advanced().type(), "NON request, NON response");
        assertTrue(client("/").ping(Duration.ofSeconds(5)), "server answers the ping with RST");
        List<String> links = client("/").discover("rt=Type1").stream().map(WebLink::target).toList();
        assertEquals(List.of("/link1", "/link3"), links);
        CoapClient silent = client("/silent").timeout(Duration.ofMillis(200));
        assertThrows(CoapTimeoutException.class, silent::get, "GET /silent never answered");
    }

    @Test
    void lifecycleIsIdempotentAndRestartable() {
        server.start();
        server.stop();
        server.stop();
        assertFalse(server.isRunning());
        server.start();
        // a port-0 server binds a fresh free port at each start
        base = "coap://" + loopback.getHostAddress() + ":" + server.port();
        assertEquals("world", client("/hello").get().payloadText(), "answers after stop/start");
        server.destroy();
        server.destroy();
        assertThrows(IllegalStateException.class, server::start);
    }
}
