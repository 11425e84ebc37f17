package io.stagecoach.core.dtls;

import static io.stagecoach.core.dtls.DtlsTestKeys.LOOPBACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapException;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.RebindingConnector;
import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.dtls.DtlsConnectorConfig.ClientAuth;
import io.stagecoach.elements.dtls.DtlsContextKeys;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * coaps end to end on loopback sockets: {@code CoapServerBuilder.dtls} and
 * {@code CoapClientBuilder.dtls} with PSK, X.509 (client certificates) and raw public keys, the
 * principal a handler reads, authorization by it, one tree on every endpoint, block-wise and
 * observe through DTLS records, and the refusals without credentials. Waits are for events, each
 * bounded.
 */
class DtlsEndpointTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final String LARGE = "0123456789".repeat(300);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private CoapServer server;
    private volatile String obsValue = "0";
    private final CoapResource obs = CoapResource.named("obs").setObservable(true)
            .onGet(ex -> ex.respond(obsValue));

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** The test resources on a server with a UDP and a DTLS endpoint. */
    private void start(Consumer<io.stagecoach.elements.dtls.DtlsConnectorConfig.Builder> security) {
        server = CoapServer.builder().udp(LOOPBACK).dtls(LOOPBACK, security).build();
        server.add(CoapResource.named("whoami").onGet(ex -> ex.respond(
                        ex.principal().map(PeerPrincipal::toString).orElse("anonymous"))),
                CoapResource.named("admin").onGet(ex -> {
                    // authorization by the authenticated identity (docs/user-guide.md, coaps)
                    if (!ex.principal().equals(java.util.Optional.of(PeerPrincipal.psk("admin")))) {
                        ex.respond(Code.FORBIDDEN, "admins only");
                        return;
                    }
                    ex.respond("welcome");
                }),
                CoapResource.named("large").onGet(ex -> ex.respond(LARGE)),
                obs);
        server.start();
    }

    private CoapEndpoint dtlsEndpoint() {
        return server.endpoints().stream().filter(e -> e.scheme().equals("coaps")).findFirst().orElseThrow();
    }

    private String coaps(String path) {
        return "coaps://127.0.0.1:" + dtlsEndpoint().address().getPort() + path;
    }

    private CoapClient client(String path, Consumer<io.stagecoach.elements.dtls.DtlsConnectorConfig.Builder> security) {
        CoapClient c = CoapClient.builder(coaps(path)).bind(LOOPBACK).dtls(security).timeout(WAIT).build();
        closeables.add(c);
        return c;
    }

    @Test
    void pskRequestCarriesThePrincipalToTheHandler() {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        assertEquals("coaps", dtlsEndpoint().scheme());
        CoapClient client = client("/whoami", d -> d.pskCredentials(DtlsTestKeys.sensor()));
        CoapResponse r = client.get();
        assertEquals(Code.CONTENT, r.code());
        assertEquals("PSK:sensor-1", r.payloadText());
        assertEquals("coaps", client.endpoint().scheme());
        // the client's side of the context names the suite RFC 7252 §9.1.3.1 makes mandatory
        assertEquals("TLS_PSK_WITH_AES_128_CCM_8", r.advanced().peer().attribute(DtlsContextKeys.CIPHER_SUITE));
        DtlsConnector connector = (DtlsConnector) dtlsEndpoint().connector();
        assertEquals(1, connector.dtlsCounters().handshakesSucceeded());
    }

    @Test
    void handlersAuthorizeByThePrincipal() {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        CoapResponse sensor = client("/admin", d -> d.pskCredentials(DtlsTestKeys.sensor())).get();
        assertEquals(Code.FORBIDDEN, sensor.code());
        assertEquals("admins only", sensor.payloadText());
        CoapResponse admin = client("/admin", d -> d.pskCredentials(DtlsTestKeys.admin())).get();
        assertEquals(Code.CONTENT, admin.code());
        assertEquals("welcome", admin.payloadText());
        // the same tree over plain UDP: no principal, so no admin either
        try (CoapClient udp = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/admin").bind(LOOPBACK)
                .timeout(WAIT).build()) {
            assertEquals(Code.FORBIDDEN, udp.get().code());
            udp.uri("coap://127.0.0.1:" + server.port() + "/whoami");
            assertEquals("anonymous", udp.get().payloadText());
        }
    }

    @Test
    void x509WithClientCertificates() {
        start(d -> d.certificateCredentials(DtlsTestKeys.serverCertificate())
                .certificateVerifier(DtlsTestKeys.trustingTheCa()).clientAuth(ClientAuth.NEEDED));
        CoapResponse r = client("/whoami", d -> d.certificateVerifier(DtlsTestKeys.trustingTheCa())
                .certificateCredentials(DtlsTestKeys.clientCertificate())).get();
        assertEquals("X509:CN=test client", r.payloadText());
        assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", r.advanced().peer().attribute(DtlsContextKeys.CIPHER_SUITE));
        assertEquals("CN=localhost", r.advanced().peer().attribute(DtlsContextKeys.PRINCIPAL).getName(),
                "the client learned whom it talks to");
    }

    @Test
    void clientWithoutACertificateIsRefusedWhenOneIsNeeded() {
        start(d -> d.certificateCredentials(DtlsTestKeys.serverCertificate())
                .certificateVerifier(DtlsTestKeys.trustingTheCa()).clientAuth(ClientAuth.NEEDED));
        CoapClient client = client("/whoami", d -> d.certificateVerifier(DtlsTestKeys.trustingTheCa()));
        long start = System.nanoTime();
        CoapException e = assertThrows(CoapException.class, client::get);
        assertTrue(e.getMessage().contains("DTLS handshake"), e.getMessage());
        assertTrue(System.nanoTime() - start < WAIT.toNanos(), "failed with the handshake, not by timeout");
    }

    @Test
    void untrustedServerIsRefused() {
        start(d -> d.certificateCredentials(DtlsTestKeys.serverCertificate()));
        TrustStoreVerifier strangers = TrustStoreVerifier.of(List.of(io.stagecoach.elements.testing.TestCertificates
                .create().ca));
        CoapException e = assertThrows(CoapException.class,
                () -> client("/whoami", d -> d.certificateVerifier(strangers)).get());
        assertTrue(e.getMessage().contains("DTLS handshake"), e.getMessage());
    }

    @Test
    void wrongPskFailsTheCallWithTheHandshake() {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        // A wrong key shows only in the Finished messages, whose records then fail authentication
        // and are dropped silently (RFC 6347 §4.1.2.7): the handshake ends at its deadline.
        CoapException e = assertThrows(CoapException.class,
                () -> client("/whoami", d -> d.pskCredentials(PskCredentials.of("sensor-1", "wrong"))
                        .handshakeTimeout(Duration.ofSeconds(2))).get());
        assertTrue(e.getMessage().contains("DTLS handshake"), e.getMessage());
    }

    @Test
    void rawPublicKeysBothWays() {
        KeyPair serverKeys = DtlsTestKeys.ecKeyPair();
        KeyPair clientKeys = DtlsTestKeys.ecKeyPair();
        start(d -> d.certificateCredentials(CertificateCredentials.rawPublicKey(serverKeys.getPrivate(),
                        serverKeys.getPublic()))
                .certificateVerifier(TrustStoreVerifier.of(List.of(), Set.of(clientKeys.getPublic())))
                .clientAuth(ClientAuth.NEEDED));
        CoapResponse r = client("/whoami", d -> d
                .certificateVerifier(TrustStoreVerifier.of(List.of(), Set.of(serverKeys.getPublic())))
                .certificateCredentials(CertificateCredentials.rawPublicKey(clientKeys.getPrivate(),
                        clientKeys.getPublic()))).get();
        PeerPrincipal expected = PeerPrincipal.rawPublicKey(clientKeys.getPublic());
        assertEquals(expected.toString(), r.payloadText());
        assertEquals(clientKeys.getPublic(), expected.rawPublicKey().orElseThrow());
    }

    @Test
    void oneTreeOnEveryEndpointAndBlockwiseThroughRecords() {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        CoapClient large = client("/large", d -> d.pskCredentials(DtlsTestKeys.sensor()));
        CoapResponse overDtls = large.get();
        assertEquals(LARGE, overDtls.payloadText());
        assertTrue(large.endpoint().counters().get(Counter.RECEIVED_ACK) >= 3,
                "the 3000 bytes came block by block, each in a piggybacked ACK");
        try (CoapClient udp = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/large").bind(LOOPBACK)
                .timeout(WAIT).build()) {
            assertEquals(LARGE, udp.get().payloadText());
        }
        assertEquals(List.of("coap", "coaps"), server.endpoints().stream().map(CoapEndpoint::scheme).toList());
    }

    @Test
    void observeOverDtls() throws Exception {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        CoapClient client = client("/obs", d -> d.pskCredentials(DtlsTestKeys.sensor()));
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        CoapObserveRelation relation = client.observeAndWait(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                seen.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) {
                seen.add("error: " + error);
            }
        });
        assertEquals("0", seen.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        for (int i = 1; i <= 3; i++) {
            obsValue = Integer.toString(i);
            obs.changed();
            assertEquals(obsValue, seen.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        relation.proactiveCancel().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(0, obs.observerCount());
    }

    /**
     * The client's socket moves to a new port mid-session (a NAT rebinding): its next request is
     * served without a new handshake (the records carry the server's connection ID, RFC 9146), and
     * the CON notifications of its observe relation follow it to the new port, their ACKs matched.
     */
    @Test
    void connectionIdKeepsRequestsAndNotificationsFlowingAfterThePortChanges() throws Exception {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        obs.setObserveType(io.stagecoach.core.coap.Type.CON);
        RebindingConnector movable = new RebindingConnector(
                () -> io.stagecoach.elements.udp.UdpConnector.builder().bindAddress(LOOPBACK).build());
        CoapClient client = client("/obs", d -> d.pskCredentials(DtlsTestKeys.sensor()).transport(c -> movable));
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        CoapObserveRelation relation = client.observeAndWait(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                seen.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) {
                seen.add("error: " + error);
            }
        });
        assertEquals("0", seen.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        int before = movable.getAddress().getPort();
        movable.rebind();
        assertTrue(movable.getAddress().getPort() != before);
        client.uri(coaps("/whoami"));
        assertEquals("PSK:sensor-1", client.get().payloadText(), "served from the new port");
        DtlsConnector connector = (DtlsConnector) dtlsEndpoint().connector();
        assertEquals(1, connector.dtlsCounters().addressChanges());
        for (int i = 1; i <= 3; i++) {
            obsValue = Integer.toString(i);
            obs.changed();
            assertEquals(obsValue, seen.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "notification at the new port");
        }
        assertEquals(1, connector.dtlsCounters().handshakesSucceeded(), "one session throughout");
        assertEquals(1, dtlsEndpoint().counters().get(Counter.PEER_MOVED));
        assertEquals(0, dtlsEndpoint().counters().get(Counter.UNMATCHED), "every ACK from the new port matched");
        relation.proactiveCancel().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(0, obs.observerCount(), "deregistered from the new port");
    }

    @Test
    void coapsNeedsCredentials() {
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        IllegalArgumentException noDefault = assertThrows(IllegalArgumentException.class,
                () -> new CoapClient(coaps("/whoami")));
        assertTrue(noDefault.getMessage().contains("dtls("), noDefault.getMessage());
        IllegalStateException builder = assertThrows(IllegalStateException.class,
                () -> CoapClient.builder(coaps("/whoami")).build());
        assertTrue(builder.getMessage().contains("DTLS credentials"), builder.getMessage());
        IllegalStateException server = assertThrows(IllegalStateException.class,
                () -> CoapServer.builder().dtls(LOOPBACK, d -> { }).build());
        assertTrue(server.getMessage().contains("PskStore or CertificateCredentials"), server.getMessage());
        // a coaps client endpoint of the caller's serves coaps URIs, and only those
        CoapEndpoint own = CoapEndpoint.builder().dtlsClient(LOOPBACK, d -> d.pskCredentials(DtlsTestKeys.sensor()))
                .build();
        try {
            assertEquals("coaps", own.scheme());
            assertThrows(IllegalArgumentException.class, () -> new CoapClient("coap://127.0.0.1/x", own));
            own.start();
            assertEquals("PSK:sensor-1", new CoapClient(coaps("/whoami"), own).timeout(WAIT).get().payloadText());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        } finally {
            own.destroy();
        }
    }

    @Test
    void postAndPutOverDtls() {
        CoapResource store = CoapResource.named("store");
        start(d -> d.pskStore(DtlsTestKeys.PSK_STORE));
        StringBuilder body = new StringBuilder();
        server.add(store.onPut(ex -> {
            body.append(ex.payloadText());
            ex.respond(Code.CHANGED);
        }));
        CoapClient client = client("/store", d -> d.pskCredentials(DtlsTestKeys.sensor()));
        assertEquals(Code.CHANGED, client.put(LARGE, ContentFormat.TEXT_PLAIN).code());
        assertEquals(LARGE, body.toString(), "a Block1 upload through DTLS records");
    }
}
