package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsTestSupport.Pki;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * libcoap's {@code coap-client-openssl} and {@code coap-client-gnutls} against our DTLS server
 * connector, whose receiver answers any CoAP request with a hand-built 2.05 "stagecoach".
 */
class LibcoapClientInteropTest {

    private DtlsConnector server;
    private final ConcurrentLinkedQueue<RawData> seen = new ConcurrentLinkedQueue<>();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private void start(DtlsConnectorConfig.Builder b) throws Exception {
        server = b.build();
        server.setRawDataReceiver(d -> {
            seen.add(d);
            byte[] reply = CoapBytes.contentReply(d.bytes(), "stagecoach");
            server.send(RawData.outbound(reply, EndpointContext.of(d.context().peer()), null));
        });
        server.start();
    }

    private String uri() {
        return "coaps://127.0.0.1:" + server.getAddress().getPort() + "/test";
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap-client-openssl", "coap-client-gnutls"})
    void psk(String client) throws Exception {
        String bin = LibcoapInteropSupport.binary(client);
        start(DtlsTestSupport.pskServer().pskStore(PskStore.of("id", "key")));
        String out = LibcoapInteropSupport.run(List.of(bin, "-u", "id", "-k", "key", "-B", "10", "-m", "get", uri()), 20);
        assertTrue(out.contains("stagecoach"), client + " printed: " + out);
        RawData request = seen.peek();
        assertEquals(PeerPrincipal.psk("id"), request.context().attribute(DtlsContextKeys.PRINCIPAL));
        assertEquals(1, server.dtlsCounters().handshakesSucceeded());
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap-client-openssl", "coap-client-gnutls"})
    void x509(String client) throws Exception {
        String bin = LibcoapInteropSupport.binary(client);
        Pki serverPki = DtlsTestSupport.pki("CN=127.0.0.1");
        Pki clientPki = DtlsTestSupport.pki("CN=libcoap-client");
        start(DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).bindAddress(DtlsTestSupport.LOOPBACK)
                .certificateCredentials(serverPki.credentials())
                .certificateVerifier(TrustStoreVerifier.of(List.of(clientPki.ca())))
                .clientAuth(DtlsConnectorConfig.ClientAuth.NEEDED));
        Path cert = LibcoapInteropSupport.certPem(dir, "client.crt", clientPki.leaf());
        Path key = LibcoapInteropSupport.keyPem(dir, "client.key", clientPki.leafKeys().getPrivate());
        Path ca = LibcoapInteropSupport.certPem(dir, "ca.crt", serverPki.ca());
        String out = LibcoapInteropSupport.run(List.of(bin, "-c", cert.toString(), "-j", key.toString(), "-C",
                ca.toString(), "-B", "10", "-m", "get", uri()), 20);
        assertTrue(out.contains("stagecoach"), client + " printed: " + out);
        assertEquals("CN=libcoap-client", seen.peek().context().attribute(DtlsContextKeys.PRINCIPAL).getName());
    }
}
