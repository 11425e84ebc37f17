package io.stagecoach.examples.interop;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.DtlsConnectorConfig.ClientAuth;
import io.stagecoach.elements.dtls.DtlsContextKeys;
import io.stagecoach.elements.dtls.PskStore;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * The plugtest server over DTLS on 127.0.0.1 (free ports), for peers in other processes, with a
 * test PKI written as PEM files:
 * <ul>
 *   <li>{@code coaps} endpoint: PSK ({@value #IDENTITY} / {@value #SECRET}) and X.509 (the
 *       test CA's {@code CN=localhost}; client certificates required, issued by the test CA);</li>
 *   <li>{@code rpk} endpoint: raw public keys (RFC 7250) both ways, the server's key from
 *       {@code server-rpk.pem}, the client's from {@code client-rpk.pem} the only one accepted.</li>
 * </ul>
 * Besides the plugtest resources, {@code /whoami} answers the request's principal and, after a
 * space, the connection ID the request arrived with ({@code -} for none).
 */
final class SecurePlugtest implements AutoCloseable {

    static final String IDENTITY = "stagecoach-interop";
    static final String SECRET = "secretPSK";

    final TestCertificates pki = TestCertificates.create();
    private final RealTimeScheduler scheduler = new RealTimeScheduler();
    private final CoapServer server;
    private final Plugtest plugtest;

    /** @param pem where the PEM files go: ca.pem, server.pem/.key, client.pem/.key, server-rpk.pem, client-rpk.pem */
    SecurePlugtest(Path pem) throws Exception {
        pki.write(pem);
        writeRpk(pem.resolve("server-rpk.pem"), pki.serverKeys.getPublic(), pki.serverKeys.getPrivate().getEncoded());
        writeRpk(pem.resolve("client-rpk.pem"), pki.clientKeys.getPublic(), pki.clientKeys.getPrivate().getEncoded());
        Configuration config = Plugtest.blockSize(CoapConfig.builder(), Plugtest.DEFAULT_BLOCK_SIZE).build();
        InetSocketAddress bind = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        server = CoapServer.builder().config(config).scheduler(scheduler)
                .dtls(bind, d -> d.pskStore(PskStore.of(IDENTITY, SECRET))
                        .certificateCredentials(CertificateCredentials.x509(pki.serverKeys.getPrivate(),
                                List.of(pki.server, pki.ca)))
                        .certificateVerifier(TrustStoreVerifier.of(List.of(pki.ca)))
                        .clientAuth(ClientAuth.NEEDED))
                .dtls(bind, d -> d.certificateCredentials(CertificateCredentials.rawPublicKey(pki.serverKeys.getPrivate(),
                                pki.serverKeys.getPublic()))
                        .certificateVerifier(TrustStoreVerifier.of(List.of(), Set.of(pki.clientKeys.getPublic())))
                        .clientAuth(ClientAuth.NEEDED))
                .build();
        plugtest = Plugtest.builder().scheduler(scheduler).notifyPeriod(PlugtestFixture.NOTIFY_PERIOD).build()
                .installOn(server);
        server.add(CoapResource.named("whoami").onGet(ex -> {
            String cid = ex.exchange().peer().attribute(DtlsContextKeys.CONNECTION_ID);
            ex.respond(ex.principal().map(PeerPrincipal::toString).orElse("anonymous") + " "
                    + (cid == null ? "-" : cid));
        }));
        server.start();
    }

    /** A PUBLIC KEY and a PRIVATE KEY block, as libcoap's {@code -M} (GnuTLS) reads a raw key pair. */
    private static void writeRpk(Path file, PublicKey publicKey, byte[] pkcs8) throws IOException {
        Files.writeString(file, pem("PUBLIC KEY", publicKey.getEncoded()) + pem("PRIVATE KEY", pkcs8),
                StandardCharsets.US_ASCII);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** {@code coaps://127.0.0.1:<port>} + {@code path} of the PSK/X.509 endpoint. */
    String uri(String path) {
        return "coaps://127.0.0.1:" + server.endpoints().get(0).address().getPort() + path;
    }

    /** {@code coaps://127.0.0.1:<port>} + {@code path} of the raw-public-key endpoint. */
    String rpkUri(String path) {
        return "coaps://127.0.0.1:" + server.endpoints().get(1).address().getPort() + path;
    }

    CoapEndpoint endpoint() {
        return server.endpoints().get(0);
    }

    int observers(String resource) {
        return ((CoapResource) server.root().child(resource)).observerCount();
    }

    @Override
    public void close() {
        server.destroy();
        plugtest.close();
        scheduler.close();
    }
}
