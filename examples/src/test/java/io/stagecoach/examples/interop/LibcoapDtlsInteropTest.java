package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CoAP over DTLS (coaps) with libcoap 4.3.1, each peer a separate process on loopback:
 * {@code coap-client-openssl} and {@code coap-client-gnutls} against our plugtest server with PSK
 * and X.509 (client certificates), GnuTLS also with raw public keys; {@code ./stagecoach client}
 * (in-process) against {@code coap-server-openssl} and {@code coap-server-gnutls} with PSK and
 * X.509, and our client API against {@code coap-server-gnutls} with raw public keys. libcoap
 * 4.3.1 offers no connection IDs, so these sessions run without (docs/dtls.md).
 */
@Tag("interop")
class LibcoapDtlsInteropTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Pattern TIME = Pattern.compile("\\d\\d:\\d\\d:\\d\\d");

    @TempDir
    static Path pem;
    private static SecurePlugtest plugtest;

    @BeforeAll
    static void start() throws Exception {
        plugtest = new SecurePlugtest(pem);
    }

    @AfterAll
    static void stop() {
        if (plugtest != null) {
            plugtest.close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static String file(String name) {
        return pem.resolve(name).toString();
    }

    /** The libcoap clients this test runs, by their DTLS library. */
    enum Client {
        OPENSSL(Peer.LIBCOAP_CLIENT_OPENSSL), GNUTLS(Peer.LIBCOAP_CLIENT_GNUTLS);

        final Peer peer;

        Client(Peer peer) {
            this.peer = peer;
        }
    }

    private static PeerRun client(Peer peer, String... args) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(peer);
        List<String> command = new ArrayList<>(List.of(exe.toString(), "-B", "10"));
        command.addAll(List.of(args));
        PeerRun r = PeerRun.of(command, DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    private static PeerRun psk(Client c, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("-u", SecurePlugtest.IDENTITY, "-k", SecurePlugtest.SECRET));
        all.addAll(List.of(args));
        return client(c.peer, all.toArray(String[]::new));
    }

    // ------------------------------------------------------------ their client, our server

    @ParameterizedTest
    @EnumSource(Client.class)
    void pskGetPostAndBlockwise(Client c) throws Exception {
        PeerRun get = psk(c, "-m", "get", plugtest.uri("/test"));
        assertTrue(get.stdout().startsWith("Type: 0 (CON)\nCode: 1 (GET)"), get.describe());
        PeerRun post = psk(c, "-v", "6", "-m", "post", "-e", "x", plugtest.uri("/test"));
        assertTrue(post.stdout().contains("2.01"), post.describe());
        PeerRun large = psk(c, "-m", "get", plugtest.uri("/large"));
        assertEquals(PlugtestText.LARGE, large.stdout().strip() + "\n", "Block2 through DTLS records: " + large.describe());
        PeerRun who = psk(c, "-m", "get", plugtest.uri("/whoami"));
        assertEquals("PSK:" + SecurePlugtest.IDENTITY + " -", who.stdout().strip(), "no connection ID: " + who.describe());
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void pskObserve(Client c) throws Exception {
        PeerRun r = psk(c, "-B", "4", "-s", "2", "-m", "get", plugtest.uri("/obs"));
        long notifications = TIME.matcher(r.stdout()).results().count();
        assertTrue(notifications >= 3, "a notification every 200 ms over DTLS:\n" + r.describe());
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void x509WithAClientCertificate(Client c) throws Exception {
        PeerRun who = client(c.peer, "-c", file("client.pem"), "-j", file("client.key"), "-C", file("ca.pem"),
                "-m", "get", plugtest.uri("/whoami"));
        assertEquals("X509:CN=test client -", who.stdout().strip(), who.describe());
    }

    @Test
    void gnutlsRawPublicKeys() throws Exception {
        PeerRun who = client(Peer.LIBCOAP_CLIENT_GNUTLS, "-M", file("client-rpk.pem"), "-m", "get",
                plugtest.rpkUri("/whoami"));
        assertEquals(PeerPrincipal.rawPublicKey(plugtest.pki.clientKeys.getPublic()) + " -", who.stdout().strip(),
                who.describe());
    }

    // ------------------------------------------------------------ our client, their server

    /** The libcoap server of {@code peer} with {@code args}; coaps on the returned port + 1, ready. */
    private static PeerProcess server(Peer peer, int port, String... args) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(peer);
        List<String> command = new ArrayList<>(List.of(exe.toString(), "-A", "127.0.0.1", "-p", Integer.toString(port),
                "-d", "10"));
        command.addAll(List.of(args));
        PeerProcess server = PeerProcess.start(command);
        // coaps+tcp listens on the same port as coaps, bound before the server serves anything
        ReliablePlugtest.awaitTcp(port + 1, server, Duration.ofSeconds(10));
        return server;
    }

    @ParameterizedTest
    @EnumSource(value = Peer.class, names = {"LIBCOAP_SERVER_OPENSSL", "LIBCOAP_SERVER_GNUTLS"})
    void ourClientWithPsk(Peer peer) throws Exception {
        int port = LoopbackPorts.freeUdpAndTcpPortPair();
        try (PeerProcess server = server(peer, port, "-k", "secretPSK", "-h", "hint")) {
            String base = "coaps://127.0.0.1:" + (port + 1);
            Cli root = Cli.run("-v", "-u", "stagecoach", "-k", "secretPSK", base + "/");
            assertEquals(0, root.status(), root + "\n" + server.describe());
            assertTrue(root.out().startsWith("2.05 Content"), root.toString());
            assertTrue(root.out().contains("This is a test server made with libcoap"), root.toString());
            Cli put = Cli.run("-v", "-u", "stagecoach", "-k", "0x" + java.util.HexFormat.of().formatHex(
                    "secretPSK".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    "-m", "put", "-t", "text", "-e", "over dtls", base + "/made-by-stagecoach");
            assertTrue(put.out().startsWith("2.01 Created"), put.toString());
            String big = "z".repeat(3000);
            Cli bigPut = Cli.run("-u", "stagecoach", "-k", "secretPSK", "-m", "put", "-b", "256", "-t", "text", "-e",
                    big, base + "/big");
            assertEquals(0, bigPut.status(), bigPut.toString());
            Cli bigGet = Cli.run("-u", "stagecoach", "-k", "secretPSK", "-b", "256", base + "/big");
            assertEquals(big + "\n", bigGet.out(), "Block1 and Block2 over DTLS: " + bigGet);
            Cli wrong = Cli.run("-B", "3", "-u", "stagecoach", "-k", "not-the-key", base + "/");
            assertEquals(2, wrong.status(), "a wrong key ends with the handshake: " + wrong);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Peer.class, names = {"LIBCOAP_SERVER_OPENSSL", "LIBCOAP_SERVER_GNUTLS"})
    void ourClientWithCertificates(Peer peer) throws Exception {
        int port = LoopbackPorts.freeUdpAndTcpPortPair();
        try (PeerProcess server = server(peer, port, "-c", file("server.pem"), "-j", file("server.key"),
                "-C", file("ca.pem"))) {
            String base = "coaps://127.0.0.1:" + (port + 1);
            Cli root = Cli.run("-v", "-c", file("client.pem"), "-j", file("client.key"), "-C", file("ca.pem"), base + "/");
            assertEquals(0, root.status(), root + "\n" + server.describe());
            assertTrue(root.out().contains("This is a test server made with libcoap"), root.toString());
            Path other = Files.createDirectories(pem.resolve("other"));
            TestCertificates.create().write(other);
            Cli stranger = Cli.run("-B", "5", "-c", file("client.pem"), "-j", file("client.key"), "-C",
                    other.resolve("ca.pem").toString(), base + "/");
            assertEquals(2, stranger.status(), "the server's chain ends at another CA: " + stranger);
            assertTrue(stranger.err().contains("DTLS handshake"), stranger.toString());
        }
    }

    @Test
    void ourClientWithRawPublicKeysAgainstGnutls() throws Exception {
        int port = LoopbackPorts.freeUdpAndTcpPortPair();
        try (PeerProcess server = server(Peer.LIBCOAP_SERVER_GNUTLS, port, "-M", file("server-rpk.pem"))) {
            var keys = plugtest.pki;
            try (CoapClient client = CoapClient.builder("coaps://127.0.0.1:" + (port + 1) + "/")
                    .dtls(d -> d.certificateCredentials(CertificateCredentials.rawPublicKey(keys.clientKeys.getPrivate(),
                                    keys.clientKeys.getPublic()))
                            .certificateVerifier(TrustStoreVerifier.of(List.of(), Set.of(keys.serverKeys.getPublic()))))
                    .timeout(Duration.ofSeconds(10)).build()) {
                CoapResponse r = client.get();
                assertTrue(r.payloadText().contains("This is a test server made with libcoap"),
                        r.payloadText() + "\n" + server.describe());
            }
        }
    }
}
