package io.stagecoach.elements.dtls;

import static io.stagecoach.elements.dtls.DtlsTestSupport.TIMEOUT_S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.dtls.DtlsTestSupport.Pki;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Our DTLS client against our DTLS server on loopback sockets. */
class DtlsConnectorTest {

    private final List<Connector> opened = new ArrayList<>();

    private DtlsConnector open(DtlsConnectorConfig.Builder b) throws Exception {
        DtlsConnector c = b.build();
        opened.add(c);
        c.start();
        return c;
    }

    @AfterEach
    void stopAll() {
        opened.forEach(Connector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static String roundTrip(DtlsConnector client, Inbox inbox, InetSocketAddress server, String text)
            throws Exception {
        DtlsTestSupport.send(client, server, text.getBytes(StandardCharsets.UTF_8)).get(TIMEOUT_S, TimeUnit.SECONDS);
        return new String(inbox.take().bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void pskRoundTripCarriesTheAttributes() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        Inbox seen = new Inbox();
        server.setRawDataReceiver(d -> {
            seen.queue.add(d);
            server.send(RawData.outbound(("echo:" + new String(d.bytes(), StandardCharsets.UTF_8)).getBytes(),
                    io.stagecoach.elements.EndpointContext.of(d.context().peer()), null));
        });
        DtlsConnector client = open(DtlsTestSupport.pskClient());
        Inbox inbox = new Inbox();
        inbox.attach(client);

        assertEquals("echo:hello", roundTrip(client, inbox, server.getAddress(), "hello"));
        RawData atServer = seen.take();
        assertEquals(PeerPrincipal.psk("client1"), atServer.context().attribute(DtlsContextKeys.PRINCIPAL));
        assertEquals("TLS_PSK_WITH_AES_128_CCM_8", atServer.context().attribute(DtlsContextKeys.CIPHER_SUITE));
        assertNotNull(atServer.context().attribute(DtlsContextKeys.CONNECTION_ID), "server issued a CID");
        assertEquals(12, atServer.context().attribute(DtlsContextKeys.CONNECTION_ID).length());
        assertEquals(64, atServer.context().attribute(DtlsContextKeys.SESSION_ID).length());
        for (int i = 0; i < 20; i++) {
            assertEquals("echo:m" + i, roundTrip(client, inbox, server.getAddress(), "m" + i));
        }
        assertEquals(1, server.dtlsCounters().handshakesSucceeded());
        assertEquals(1, server.dtlsCounters().helloVerifyRequestsSent());
        assertEquals(21, server.counters().received());
        assertEquals(21, client.counters().received());
    }

    /**
     * Both sides on the Netty UDP connector (epoll where it loads): the handshake threads write
     * their flights to the channel's socket themselves ({@code Connector.sendDirect}), and records
     * then flow both ways from the event loops.
     */
    @Test
    void pskOverTheNettyTransportBothSides() throws Exception {
        Function<DtlsConnectorConfig, Connector> netty = c -> new NettyUdpConnector(UdpConnectorConfig.builder()
                .bindAddress(c.bindAddress()).nettyChannels(1).maxDatagramSize(c.maxDatagramSize()).buildConfig());
        DtlsConnector server = open(DtlsTestSupport.pskServer().transport(netty));
        DtlsTestSupport.echo(server);
        DtlsConnector client = open(DtlsTestSupport.pskClient().transport(netty));
        Inbox inbox = new Inbox();
        inbox.attach(client);
        for (int i = 0; i < 5; i++) {
            assertEquals("echo:n" + i, roundTrip(client, inbox, server.getAddress(), "n" + i));
        }
        assertEquals(1, server.dtlsCounters().handshakesSucceeded());
        assertEquals(1, client.dtlsCounters().handshakesSucceeded());
        assertEquals(5, server.counters().received());
    }

    @Test
    void wrongPskFailsTheHandshakeAndTheQueuedSend() throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer());
        DtlsConnector client = open(DtlsTestSupport.pskClient()
                .pskCredentials(PskCredentials.of("client1", "wrong")).handshakeTimeout(java.time.Duration.ofSeconds(5)));
        var f = DtlsTestSupport.send(client, server.getAddress(), "x".getBytes());
        Throwable t = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                () -> f.get(TIMEOUT_S, TimeUnit.SECONDS)).getCause();
        assertTrue(t instanceof io.stagecoach.elements.SendFailedException, t.toString());
        assertEquals(1, client.dtlsCounters().handshakesFailed());
        assertEquals(0, server.sessionCount());
    }

    @Test
    void x509WithClientCertificates() throws Exception {
        Pki serverPki = DtlsTestSupport.pki("CN=server");
        Pki clientPki = DtlsTestSupport.pki("CN=device-7");
        DtlsConnector server = open(DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(DtlsTestSupport.LOOPBACK).certificateCredentials(serverPki.credentials())
                .certificateVerifier(TrustStoreVerifier.of(List.of(clientPki.ca())))
                .clientAuth(DtlsConnectorConfig.ClientAuth.NEEDED));
        Inbox seen = new Inbox();
        seen.attach(server);
        DtlsConnector client = open(DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT)
                .bindAddress(DtlsTestSupport.LOOPBACK).certificateCredentials(clientPki.credentials())
                .certificateVerifier(TrustStoreVerifier.of(List.of(serverPki.ca()))));
        DtlsTestSupport.send(client, server.getAddress(), "hi".getBytes()).get(TIMEOUT_S, TimeUnit.SECONDS);
        RawData d = seen.take();
        assertEquals("CN=device-7", d.context().attribute(DtlsContextKeys.PRINCIPAL).getName());
        assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", d.context().attribute(DtlsContextKeys.CIPHER_SUITE));
        assertEquals("CN=server", client.sessionContext(server.getAddress())
                .attribute(DtlsContextKeys.PRINCIPAL).getName());
    }

    @Test
    void untrustedServerCertificateFailsTheHandshake() throws Exception {
        Pki serverPki = DtlsTestSupport.pki("CN=server");
        Pki otherPki = DtlsTestSupport.pki("CN=other");
        DtlsConnector server = open(DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(DtlsTestSupport.LOOPBACK).certificateCredentials(serverPki.credentials()));
        DtlsConnector client = open(DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT)
                .bindAddress(DtlsTestSupport.LOOPBACK)
                .certificateVerifier(TrustStoreVerifier.of(List.of(otherPki.ca()))));
        var f = DtlsTestSupport.send(client, server.getAddress(), "hi".getBytes());
        org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                () -> f.get(TIMEOUT_S, TimeUnit.SECONDS));
        assertEquals(1, client.dtlsCounters().handshakesFailed());
    }

    @Test
    void rawPublicKeys() throws Exception {
        KeyPair serverKeys = DtlsTestSupport.ecKeyPair();
        KeyPair clientKeys = DtlsTestSupport.ecKeyPair();
        DtlsConnector server = open(DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER)
                .bindAddress(DtlsTestSupport.LOOPBACK)
                .certificateCredentials(CertificateCredentials.rawPublicKey(serverKeys.getPrivate(), serverKeys.getPublic()))
                .certificateVerifier(TrustStoreVerifier.of(List.of(), List.of(clientKeys.getPublic())))
                .clientAuth(DtlsConnectorConfig.ClientAuth.NEEDED));
        Inbox seen = new Inbox();
        seen.attach(server);
        DtlsConnector client = open(DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT)
                .bindAddress(DtlsTestSupport.LOOPBACK)
                .certificateCredentials(CertificateCredentials.rawPublicKey(clientKeys.getPrivate(), clientKeys.getPublic()))
                .certificateVerifier(TrustStoreVerifier.of(List.of(), List.of(serverKeys.getPublic()))));
        DtlsTestSupport.send(client, server.getAddress(), "rpk".getBytes()).get(TIMEOUT_S, TimeUnit.SECONDS);
        RawData d = seen.take();
        assertEquals(PeerPrincipal.rawPublicKey(clientKeys.getPublic()), d.context().attribute(DtlsContextKeys.PRINCIPAL));
    }
}
