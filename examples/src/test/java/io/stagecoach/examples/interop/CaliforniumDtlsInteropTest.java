package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.DtlsContextKeys;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CoAP over DTLS with Eclipse Californium/Scandium 3.13, which runs in a JVM of its own
 * ({@link CaliforniumDtlsPeer}, started with this test's class path): their client against our
 * plugtest server with PSK, X.509 and raw public keys, with and without connection IDs (RFC 9146:
 * Scandium offers them, so ours are tested both ways here), observe and Block2; our client
 * ({@code ./stagecoach client} and the API) against their server with the same credentials.
 */
@Tag("interop")
class CaliforniumDtlsInteropTest {

    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** Our server's connection IDs: dtls.cid-length 6 bytes, in hex. */
    private static final String OUR_CID = "[0-9a-f]{12}";

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

    private static List<String> peer(String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CaliforniumDtlsPeer.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** Their client, run to completion: the PAYLOAD line (or every NOTIFY line with {@code n}). */
    private static PeerRun theirClient(String mode, String cid, String uri, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("client", mode, cid, pem.toString(), uri));
        args.addAll(List.of(more));
        PeerRun r = PeerRun.of(peer(args.toArray(String[]::new)), DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    private static String payload(PeerRun r) {
        Matcher m = Pattern.compile("(?m)^PAYLOAD (.*)$").matcher(r.stdout());
        assertTrue(m.find(), r.describe());
        assertTrue(r.stdout().contains("CODE 2.05"), r.describe());
        return m.group(1);
    }

    // ------------------------------------------------------------ their client, our server

    @Test
    void pskWithAndWithoutConnectionIds() throws Exception {
        String with = payload(theirClient("psk", "4", plugtest.uri("/whoami")));
        assertTrue(with.matches("PSK:" + SecurePlugtest.IDENTITY + " " + OUR_CID),
                "our server issued a connection ID to Scandium, which uses it: " + with);
        String without = payload(theirClient("psk", "none", plugtest.uri("/whoami")));
        assertEquals("PSK:" + SecurePlugtest.IDENTITY + " -", without);
    }

    @Test
    void x509WithAClientCertificate() throws Exception {
        String who = payload(theirClient("x509", "4", plugtest.uri("/whoami")));
        assertTrue(who.matches("X509:CN=test client " + OUR_CID), who);
    }

    @Test
    void rawPublicKeys() throws Exception {
        String who = payload(theirClient("rpk", "0", plugtest.rpkUri("/whoami")));
        assertTrue(who.startsWith(PeerPrincipal.rawPublicKey(plugtest.pki.clientKeys.getPublic()) + " "), who);
    }

    @Test
    void observeAndBlock2() throws Exception {
        PeerRun large = theirClient("psk", "4", plugtest.uri("/large"));
        assertTrue(large.stdout().contains("CODE 2.05\nPAYLOAD " + PlugtestText.LARGE),
                "Block2 through DTLS records: " + large.describe());
        PeerRun obs = theirClient("psk", "4", plugtest.uri("/obs"), "3");
        assertTrue(obs.stdout().lines().filter(l -> l.startsWith("NOTIFY ")).count() >= 4, obs.describe());
    }

    // ------------------------------------------------------------ our client, their server

    /** Their server in MODE with connection IDs of {@code cid} bytes; ready when it printed its port. */
    private static PeerProcess theirServer(String mode, String cid) throws Exception {
        PeerProcess server = PeerProcess.start(peer("server", mode, cid, pem.toString()));
        assertTrue(server.awaitOutput(p -> p.stdout().contains("PORT "), Duration.ofSeconds(30)), server.describe());
        return server;
    }

    private static String base(PeerProcess server) {
        Matcher m = Pattern.compile("PORT (\\d+)").matcher(server.stdout());
        assertTrue(m.find(), server.describe());
        return "coaps://127.0.0.1:" + m.group(1);
    }

    @Test
    void ourClientWithPskAndCertificatesAgainstTheirServer() throws Exception {
        try (PeerProcess server = theirServer("psk-x509", "6")) {
            String base = base(server);
            Cli psk = Cli.run("-u", SecurePlugtest.IDENTITY, "-k", SecurePlugtest.SECRET, base + "/whoami");
            assertEquals(0, psk.status(), psk + "\n" + server.describe());
            assertTrue(psk.out().strip().matches(".*" + SecurePlugtest.IDENTITY + " [0-9a-f]{12}"),
                    "Scandium read its connection ID in our records: " + psk);
            Cli x509 = Cli.run("-c", pem.resolve("client.pem").toString(), "-j", pem.resolve("client.key").toString(),
                    "-C", pem.resolve("ca.pem").toString(), base + "/whoami");
            assertEquals(0, x509.status(), x509 + "\n" + server.describe());
            assertTrue(x509.out().contains("CN=test client"), x509.toString());
            Cli large = Cli.run("-u", SecurePlugtest.IDENTITY, "-k", SecurePlugtest.SECRET, base + "/large");
            assertEquals(CaliforniumDtlsPeer.LARGE + "\n", large.out(), large.toString());
        }
    }

    @Test
    void ourClientObservesTheirServerWithConnectionIds() throws Exception {
        try (PeerProcess server = theirServer("psk", "6");
                CoapClient client = CoapClient.builder(base(server) + "/obs")
                        .dtls(d -> d.pskCredentials(PskCredentials.of(SecurePlugtest.IDENTITY, SecurePlugtest.SECRET)))
                        .timeout(Duration.ofSeconds(15)).build()) {
            BlockingQueue<CoapResponse> seen = new LinkedBlockingQueue<>();
            CoapObserveRelation relation = client.observeAndWait(new CoapHandler() {
                @Override
                public void onLoad(CoapResponse response) {
                    seen.add(response);
                }

                @Override
                public void onError(Throwable error) {
                }
            });
            for (int i = 0; i < 4; i++) {
                CoapResponse r = seen.poll(15, TimeUnit.SECONDS);
                assertTrue(r != null, "notification " + i + "\n" + server.describe());
            }
            relation.proactiveCancel().get(15, TimeUnit.SECONDS);
            CoapResponse last = client.get();
            assertTrue(last.advanced().peer().attribute(DtlsContextKeys.CIPHER_SUITE).startsWith("TLS_PSK_WITH_AES_128"),
                    last.advanced().peer().toString());
        }
    }

    @Test
    void ourClientWithRawPublicKeysAgainstTheirServer() throws Exception {
        try (PeerProcess server = theirServer("rpk", "6");
                CoapClient client = CoapClient.builder(base(server) + "/whoami")
                        .dtls(d -> d.certificateCredentials(CertificateCredentials.rawPublicKey(
                                        plugtest.pki.clientKeys.getPrivate(), plugtest.pki.clientKeys.getPublic()))
                                .certificateVerifier(TrustStoreVerifier.of(List.of(),
                                        Set.of(plugtest.pki.serverKeys.getPublic()))))
                        .timeout(Duration.ofSeconds(15)).build()) {
            CoapResponse r = client.get();
            assertTrue(r.payloadText().matches("\\S+ [0-9a-f]{12}"), r.payloadText() + "\n" + server.describe());
            assertEquals(PeerPrincipal.Kind.RAW_PUBLIC_KEY, PeerPrincipal.of(r.advanced().peer()).orElseThrow().kind(),
                    "the server proved its raw key");
        }
    }
}
