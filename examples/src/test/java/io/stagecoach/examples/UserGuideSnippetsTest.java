package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.core.server.BoundedExecutors;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.DtlsConnectorConfig.ClientAuth;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.dtls.PskStore;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every code block of docs/user-guide.md, compiled and run here. The regions between
 * {@code // snippet:NAME} and {@code // end:NAME} are what the guide shows;
 * {@link UserGuideDriftTest} fails the build when the guide and these regions differ.
 */
class UserGuideSnippetsTest {

    private CoapServer server;

    @AfterEach
    void cleanUp() {
        if (server != null) {
            server.destroy();
        }
        CoapClient.shutdownDefaultEndpoint();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    // snippet:counter-resource
    static class CounterResource extends CoapResource {
        private int count;

        CounterResource() {
            super("counter");
            title("A counter");
        }

        @Override
        public void handleGET(CoapExchange exchange) {
            exchange.respond(Integer.toString(count));
        }

        @Override
        public void handlePOST(CoapExchange exchange) {
            count++;
            exchange.respond(Code.CHANGED);
        }
    }
    // end:counter-resource

    @Test
    void helloServerAndSyncClient() {
        // snippet:hello-server
        CoapServer server = new CoapServer(0); // 0: any free port; 5683 is CoAP's default
        server.add(CoapResource.named("hello").onGet(exchange -> exchange.respond("world")));
        server.start();
        // end:hello-server
        this.server = server;
        // snippet:client-sync
        CoapClient client = new CoapClient("coap://localhost:" + server.port() + "/hello");
        CoapResponse response = client.get();
        System.out.println(response.code() + " " + response.payloadText()); // 2.05 Content world
        // end:client-sync
        assertEquals("world", response.payloadText());
        assertTrue(response.isSuccess());
    }

    @Test
    void asyncForms() throws Exception {
        server = new CoapServer(0).add(CoapResource.named("hello").onGet(ex -> ex.respond("world"))).start();
        CoapClient client = new CoapClient("coap://localhost:" + server.port() + "/hello");
        // snippet:client-future
        CompletableFuture<String> text = client.getAsync().thenApply(CoapResponse::payloadText);
        // end:client-future
        assertEquals("world", text.get());
        AtomicReference<String> seen = new AtomicReference<>();
        CompletableFuture<Void> called = new CompletableFuture<>();
        // snippet:client-handler
        client.get(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                seen.set(response.payloadText()); // runs on a protocol thread: do not block here
                called.complete(null);
            }

            @Override
            public void onError(Throwable error) {
                called.completeExceptionally(error);
            }
        });
        // end:client-handler
        called.get();
        assertEquals("world", seen.get());
    }

    @Test
    void treeSubclassAndMethods() {
        // snippet:tree
        server = new CoapServer(0)
                .add(new CounterResource())
                .add(new CoapResource("A").add(new CoapResource("A1").add(new CoapResource("A1_a"))));
        // end:tree
        server.start();
        String base = "coap://localhost:" + server.port();
        // snippet:client-methods
        CoapClient counter = new CoapClient(base + "/counter");
        counter.post("", ContentFormat.TEXT_PLAIN);                 // 2.04 Changed
        String value = counter.get().payloadText();
        CoapResponse notThere = counter.delete();  // 4.05 Method Not Allowed: no handleDELETE
        // end:client-methods
        assertEquals("1", value);
        assertEquals(Code.METHOD_NOT_ALLOWED, notThere.code());
        assertEquals(Code.METHOD_NOT_ALLOWED, new CoapClient(base + "/A/A1/A1_a").get().code(),
                "a plain CoapResource answers 4.05");
    }

    @Test
    void createWithLocationAndSeparateResponse() {
        ExecutorService worker = BoundedExecutors.singleThread("guide-worker", 10);
        try {
            // snippet:create
            CoapResource items = CoapResource.named("items");
            items.onPost(exchange -> {
                String id = Integer.toString(items.children().size() + 1);
                String body = exchange.payloadText();
                items.add(CoapResource.named(id).onGet(ex -> ex.respond(body)));
                exchange.respond(Code.CREATED, r -> r.locationPath("items", id));
            });
            // end:create
            // snippet:separate
            CoapResource slow = CoapResource.named("slow").onGet(exchange -> {
                exchange.accept(); // empty ACK now; the client keeps waiting
                worker.execute(() -> exchange.respond("done")); // the response, later, from any thread
            });
            // end:separate
            server = new CoapServer(0).add(items, slow).start();
            String base = "coap://localhost:" + server.port();
            // snippet:create-client
            CoapResponse created = new CoapClient(base + "/items").post("milk", ContentFormat.TEXT_PLAIN);
            System.out.println(created.code() + " at " + created.location()); // 2.01 Created at /items/1
            // end:create-client
            assertEquals(Code.CREATED, created.code());
            assertEquals("milk", new CoapClient(base + created.location()).get().payloadText());
            assertEquals("done", new CoapClient(base + "/slow").get().payloadText());
        } finally {
            worker.shutdownNow();
        }
    }

    @Test
    void executors() {
        // snippet:executor
        ExecutorService oneAtATime = BoundedExecutors.singleThread("sensors", 100);
        CoapResource sensors = new CoapResource("sensors");
        sensors.setExecutor(oneAtATime); // children without their own executor inherit it
        sensors.add(CoapResource.named("temp").onGet(ex -> ex.respond(Thread.currentThread().getName())));
        // end:executor
        try {
            server = new CoapServer(0).add(sensors).start();
            String ranOn = new CoapClient("coap://localhost:" + server.port() + "/sensors/temp").get().payloadText();
            assertTrue(ranOn.startsWith("stagecoach-resource-sensors-"), ranOn);
        } finally {
            oneAtATime.shutdownNow();
        }
    }

    @Test
    void discovery() {
        // snippet:discovery-server
        server = new CoapServer(0).add(
                CoapResource.named("temp").resourceType("temperature").title("Kitchen").contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("light").resourceType("light-lux").interfaceDescription("sensor"));
        // end:discovery-server
        server.start();
        CoapClient client = new CoapClient("coap://localhost:" + server.port() + "/");
        // snippet:discovery-client
        List<WebLink> links = client.discover("rt=temp*"); // GET /.well-known/core?rt=temp*
        for (WebLink link : links) {
            System.out.println(link.target() + " " + link.attributes()); // /temp {rt=[temperature], ...}
        }
        // end:discovery-client
        assertEquals(List.of("/temp"), links.stream().map(WebLink::target).toList());
    }

    @Test
    void failuresOptionsAndPing() {
        server = new CoapServer(0).add(
                CoapResource.named("silent").onGet(ex -> { }),
                CoapResource.named("hello").onGet(ex -> ex.respond("world"))).start();
        String base = "coap://localhost:" + server.port();
        AtomicReference<String> message = new AtomicReference<>();
        // snippet:timeout
        CoapClient slowClient = new CoapClient(base + "/silent").timeout(Duration.ofMillis(300));
        try {
            slowClient.get();
        } catch (CoapTimeoutException e) {
            message.set(e.getMessage()); // "no response to 0.01 GET ... within 300 ms"
        }
        // end:timeout
        assertTrue(message.get().contains("within 300 ms"), message.get());
        CoapClient client = new CoapClient(base + "/hello");
        // snippet:options
        client.useNONs();                                         // NON requests: no ACK, no retransmission
        CoapResponse text = client.get(ContentFormat.TEXT_PLAIN); // Accept: text/plain
        client.useCONs();
        Request custom = client.newRequest(Code.GET)
                .accept(ContentFormat.TEXT_PLAIN)
                .options(o -> o.add(Option.of(65000, new byte[] {1}))) // an experimental, elective option
                .build();
        CoapResponse viaAdvanced = client.advanced(custom);
        // end:options
        assertEquals("world", text.payloadText());
        assertEquals(Code.CONTENT, viaAdvanced.code());
        // snippet:ping
        boolean alive = client.ping(); // Empty CON; the server's RST proves it is there
        // end:ping
        assertTrue(alive);
        assertThrows(IllegalArgumentException.class, () -> new CoapClient("http://example.com/"),
                "a URI that is not coap:// is refused at once");
    }

    @Test
    void builderAndShutdown() {
        // snippet:builder
        CoapServer server = CoapServer.builder()
                .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .resourceThreads(4, 1000) // default executor for every resource; full queue: 5.03
                .build()
                .add(CoapResource.named("hello").onGet(ex -> ex.respond(Thread.currentThread().getName())));
        server.start();
        // end:builder
        this.server = server;
        String ranOn = new CoapClient("coap://127.0.0.1:" + server.port() + "/hello").get().payloadText();
        assertTrue(ranOn.startsWith("stagecoach-resource-server-"), ranOn);
        // snippet:shutdown
        server.destroy();                    // ports, protocol threads, the server's own executor
        CoapClient.shutdownDefaultEndpoint(); // the shared client endpoint
        // end:shutdown
        assertTrue(!server.isRunning());
    }

    @Test
    void configurationOwnClientAndInterceptor(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("stagecoach.properties");
        Files.writeString(file, "coap.nstart=2\nudp.receive-buffer=1MiB\n");
        // snippet:config
        Configuration config = CoapConfig.builder()
                .loadFile(file)                        // key=value lines, e.g. coap.nstart=2
                .applySystemProperties()               // -Dstagecoach.coap.ack-timeout=3s wins over the file
                .set(CoapConfig.EXCHANGE_LIFETIME, Duration.ofSeconds(120)) // code wins over both
                .build();
        CoapServer server = CoapServer.builder()
                .config(config) // every endpoint and UDP socket the builder creates uses it
                .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build();
        // end:config
        this.server = server;
        assertEquals(2, server.endpoints().get(0).config().get(CoapConfig.NSTART));
        // snippet:interceptor
        server = CoapServer.builder()
                .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .handlerInterceptor(chain -> {
                    if (!chain.exchange().sourceAddress().getAddress().isLoopbackAddress()) {
                        chain.exchange().respond(Code.FORBIDDEN); // 4.03; the handler does not run
                        return;
                    }
                    chain.proceed();
                })
                .build()
                .add(CoapResource.named("admin").onGet(ex -> ex.respond("ok")))
                .start();
        // end:interceptor
        this.server.destroy();
        this.server = server;
        String uri = "coap://127.0.0.1:" + server.port() + "/admin";
        // snippet:own-client
        try (CoapClient own = CoapClient.builder(uri).config(config).timeout(Duration.ofSeconds(5)).build()) {
            System.out.println(own.get().payloadText()); // its own endpoint, destroyed by close()
        }
        // end:own-client
        try (CoapClient own = CoapClient.builder(uri).build()) {
            assertEquals("ok", own.get().payloadText());
        }
    }

    @Test
    void observe() throws Exception {
        AtomicReference<String> celsius = new AtomicReference<>("20.0");
        // snippet:observe-server
        CoapResource temperature = CoapResource.named("temperature").setObservable(true)
                .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload(celsius.get()).maxAge(30)));
        temperature.setObserveType(Type.NON); // optional: NON notifications, a CON now and then
        server = new CoapServer(0).add(temperature).start();
        // end:observe-server
        BlockingQueue<String> readings = new LinkedBlockingQueue<>();
        // snippet:observe-client
        CoapClient client = new CoapClient("coap://localhost:" + server.port() + "/temperature");
        CoapObserveRelation relation = client.observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) { // the registration answer, then each fresh notification
                readings.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) { // the relation failed: timeout, RST, endpoint stopped
                System.err.println("observation ended: " + error);
            }
        });
        // end:observe-client
        assertEquals("20.0", readings.poll(5, TimeUnit.SECONDS), "the registration answer");
        // snippet:observe-changed
        celsius.set("21.5");
        temperature.changed(); // runs the GET handler once per observer; each gets a notification
        // end:observe-changed
        assertEquals("21.5", readings.poll(5, TimeUnit.SECONDS), "the notification");
        assertEquals(1, temperature.observerCount());
        // snippet:observe-cancel
        relation.proactiveCancel().get(); // GET with Observe=1 and the same token: the server forgets us
        // end:observe-cancel
        assertTrue(relation.isCanceled());
        assertEquals(0, temperature.observerCount());
    }

    @Test
    void largePayloads() {
        // snippet:large-server
        AtomicReference<byte[]> stored = new AtomicReference<>(new byte[5000]); // 5,000 bytes: sent in blocks
        CoapResource blob = CoapResource.named("blob")
                .onGet(ex -> ex.respond(Code.CONTENT, stored.get(), ContentFormat.OCTET_STREAM))
                .onPut(ex -> {
                    stored.set(ex.payload()); // the whole body, reassembled from its Block1 blocks
                    ex.respond(Code.CHANGED);
                });
        server = new CoapServer(0).add(blob).start();
        // end:large-server
        // snippet:large-client
        CoapClient client = new CoapClient("coap://localhost:" + server.port() + "/blob");
        byte[] body = client.get().payload();                              // Block2, fetched block by block
        CoapResponse changed = client.put(new byte[3000], ContentFormat.OCTET_STREAM);             // Block1, 2.31 Continue per block
        // end:large-client
        assertEquals(5000, body.length);
        assertEquals(Code.CHANGED, changed.code());
        assertEquals(3000, stored.get().length);
    }

    @Test
    void coaps() throws Exception {
        // snippet:dtls-server
        PskStore keys = PskStore.of(Map.of(
                "sensor-1", "sensor-1-secret".getBytes(StandardCharsets.UTF_8),
                "admin", "admin-secret".getBytes(StandardCharsets.UTF_8)));
        server = CoapServer.builder()
                .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))  // coap://
                .dtls(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), // coaps://, the same tree
                        dtls -> dtls.pskStore(keys))
                .build()
                .add(CoapResource.named("config")
                        .onGet(ex -> ex.respond("interval=60"))
                        .onPut(ex -> {
                            // who proved what in the DTLS handshake: the basis for authorization
                            if (!ex.principal().equals(Optional.of(PeerPrincipal.psk("admin")))) {
                                ex.respond(Code.FORBIDDEN, "admins only");
                                return;
                            }
                            ex.respond(Code.CHANGED);
                        }))
                .start();
        // end:dtls-server
        String uri = "coaps://127.0.0.1:" + server.endpoints().get(1).address().getPort() + "/config";
        // snippet:dtls-client
        try (CoapClient admin = CoapClient.builder(uri)
                .dtls(dtls -> dtls.pskCredentials(PskCredentials.of("admin", "admin-secret")))
                .build()) {
            CoapResponse r = admin.put("interval=30", ContentFormat.TEXT_PLAIN); // 2.04 Changed
        }
        // end:dtls-client
        try (CoapClient admin = CoapClient.builder(uri)
                .dtls(dtls -> dtls.pskCredentials(PskCredentials.of("admin", "admin-secret"))).build();
                CoapClient sensor = CoapClient.builder(uri)
                        .dtls(dtls -> dtls.pskCredentials(PskCredentials.of("sensor-1", "sensor-1-secret"))).build();
                CoapClient plain = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/config").build()) {
            assertEquals(Code.CHANGED, admin.put("interval=30", ContentFormat.TEXT_PLAIN).code());
            assertEquals("interval=60", sensor.get().payloadText());
            assertEquals(Code.FORBIDDEN, sensor.put("interval=1", ContentFormat.TEXT_PLAIN).code());
            assertEquals(Code.FORBIDDEN, plain.put("interval=1", ContentFormat.TEXT_PLAIN).code(), "no principal over UDP");
        }
        assertThrows(IllegalArgumentException.class, () -> new CoapClient(uri), "coaps needs credentials");
    }

    @Test
    void coapsWithCertificatesAndAnAsynchronousRegistry() throws Exception {
        TestCertificates pki = TestCertificates.create();
        PrivateKey serverKey = pki.serverKeys.getPrivate();
        PrivateKey clientKey = pki.clientKeys.getPrivate();
        X509Certificate serverCert = pki.server;
        X509Certificate clientCert = pki.client;
        X509Certificate caCert = pki.ca;
        Map<String, byte[]> database = new java.util.concurrent.ConcurrentHashMap<>(
                Map.of("sensor-1", "sensor-1-secret".getBytes(StandardCharsets.UTF_8)));
        InetSocketAddress bind = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        // snippet:dtls-registry
        ExecutorService registry = Executors.newSingleThreadExecutor(); // stands for a registry's client
        PskStore lookup = (identity, peer) ->
                CompletableFuture.supplyAsync(() -> database.get(identity), registry); // null: unknown identity
        // end:dtls-registry
        try {
            // snippet:dtls-certificates
            server = CoapServer.builder()
                    .dtls(bind, dtls -> dtls
                            .pskStore(lookup)                          // PSK clients, looked up as they come
                            .certificateCredentials(CertificateCredentials.x509(serverKey, List.of(serverCert, caCert)))
                            .certificateVerifier(TrustStoreVerifier.of(List.of(caCert))) // certificate clients
                            .clientAuth(ClientAuth.NEEDED))
                    .build()
                    .add(CoapResource.named("whoami").onGet(ex -> ex.respond(ex.principal().orElseThrow().name())))
                    .start();
            String uri = "coaps://127.0.0.1:" + server.port() + "/whoami";
            CoapClient client = CoapClient.builder(uri)
                    .dtls(dtls -> dtls
                            .certificateVerifier(TrustStoreVerifier.of(List.of(caCert))) // whom we trust
                            .certificateCredentials(CertificateCredentials.x509(clientKey, List.of(clientCert, caCert))))
                    .build();
            // end:dtls-certificates
            try (client; CoapClient psk = CoapClient.builder(uri)
                    .dtls(dtls -> dtls.pskCredentials(PskCredentials.of("sensor-1", "sensor-1-secret"))).build()) {
                assertEquals("CN=test client", client.get().payloadText());
                assertEquals("sensor-1", psk.get().payloadText(), "answered by the registry thread");
            }
        } finally {
            registry.shutdownNow();
        }
    }
}
