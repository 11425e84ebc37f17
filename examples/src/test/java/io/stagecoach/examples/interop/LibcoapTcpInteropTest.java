package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CoAP over TCP and TLS (RFC 8323) with libcoap 4.3.1: {@code coap-client-notls} (coap+tcp) and
 * {@code coap-client-openssl} (coaps+tcp) against the plugtest server; {@code ./stagecoach client}
 * against {@code coap-server-notls} (coap+tcp, the same port as UDP) and
 * {@code coap-server-openssl} (coaps+tcp on the port after it), with a test PKI made at test time.
 */
@Tag("interop")
class LibcoapTcpInteropTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    @TempDir
    static Path pem;
    private static ReliablePlugtest plugtest;

    @BeforeAll
    static void start() throws Exception {
        plugtest = new ReliablePlugtest(pem);
    }

    @AfterAll
    static void stop() {
        if (plugtest != null) {
            plugtest.close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static PeerRun client(Peer peer, String... args) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(peer);
        List<String> command = new ArrayList<>(List.of(exe.toString(), "-B", "5"));
        command.addAll(List.of(args));
        PeerRun r = PeerRun.of(command, DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    @Test
    void notlsGetOverTcp() throws Exception {
        PeerRun r = client(Peer.LIBCOAP_CLIENT, "-m", "get", plugtest.uri("coap+tcp", "/test"));
        assertTrue(r.stdout().startsWith("Type: none\nCode: 1 (GET)\nMID: -1"), r.describe());
    }

    @Test
    void notlsBlockwisePutAndGetOverTcp(@TempDir Path dir) throws Exception {
        Path body = dir.resolve("body.txt");
        Files.writeString(body, "x".repeat(3000));
        client(Peer.LIBCOAP_CLIENT, "-m", "put", "-t", "text", "-f", body.toString(),
                plugtest.uri("coap+tcp", "/large-update"));
        PeerRun get = client(Peer.LIBCOAP_CLIENT, "-m", "get", plugtest.uri("coap+tcp", "/large-update"));
        assertEquals("x".repeat(3000), get.stdout().strip(), get.describe());
        PeerRun large = client(Peer.LIBCOAP_CLIENT, "-m", "get", plugtest.uri("coap+tcp", "/large"));
        assertEquals(PlugtestText.LARGE, large.stdout().strip() + "\n", large.describe());
    }

    @Test
    void notlsObservesOverTcpAndTheRelationEndsWithTheConnection() throws Exception {
        // -s 2: observe for 2 s, then the client closes its connection
        PeerRun r = client(Peer.LIBCOAP_CLIENT, "-B", "3", "-s", "2", "-m", "get", plugtest.uri("coap+tcp", "/obs"));
        // each notification's payload is the time, printed without a newline
        long notifications = java.util.regex.Pattern.compile("\\d\\d:\\d\\d:\\d\\d").matcher(r.stdout()).results().count();
        assertTrue(notifications >= 3, "a notification every 200 ms:\n" + r.describe());
        Await.until(() -> plugtest.observers("obs") == 0, Duration.ofSeconds(5));
        assertEquals(0, plugtest.observers("obs"), "the relation ended with the connection");
    }

    @Test
    void opensslGetAndPostOverTls() throws Exception {
        PeerRun r = client(Peer.LIBCOAP_CLIENT_OPENSSL, "-R", pem.resolve("ca.pem").toString(), "-m", "get",
                plugtest.uri("coaps+tcp", "/test"));
        assertTrue(r.stdout().startsWith("Type: none\nCode: 1 (GET)"), r.describe());
        PeerRun post = client(Peer.LIBCOAP_CLIENT_OPENSSL, "-R", pem.resolve("ca.pem").toString(), "-v", "6",
                "-m", "post", "-e", "x", plugtest.uri("coaps+tcp", "/test"));
        assertTrue(post.stdout().contains("c:2.01"), post.describe());
    }

    @Test
    void ourClientAgainstCoapServerNotlsOverTcp() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_SERVER);
        int port = LoopbackPorts.freeUdpAndTcpPort();
        try (PeerProcess server = PeerProcess.start(exe, "-A", "127.0.0.1", "-p", Integer.toString(port), "-d", "10")) {
            ReliablePlugtest.awaitTcp(port, server, Duration.ofSeconds(10));
            String base = "coap+tcp://127.0.0.1:" + port;
            Cli root = Cli.run("-v", base + "/");
            assertEquals(0, root.status(), root.toString());
            assertTrue(root.out().startsWith("2.05 Content"), root.toString());
            assertTrue(root.out().contains("This is a test server made with libcoap"), root.toString());
            Cli put = Cli.run("-v", "-m", "put", "-t", "text", "-e", "over tcp", base + "/made-by-stagecoach");
            assertTrue(put.out().startsWith("2.01 Created"), put.toString());
            assertEquals("over tcp\n", Cli.run(base + "/made-by-stagecoach").out());
            String big = "y".repeat(3000);
            Cli bigPut = Cli.run("-m", "put", "-b", "64", "-t", "text", "-e", big, base + "/big");
            assertEquals(0, bigPut.status(), bigPut.toString());
            Cli bigGet = Cli.run("-b", "64", base + "/big");
            assertEquals(big + "\n", bigGet.out(), bigGet.toString());
            server.close();
            assertFalse(server.isAlive());
        }
    }

    @Test
    void ourClientAgainstCoapServerOpensslOverTls() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_SERVER_OPENSSL);
        int port = LoopbackPorts.freeUdpAndTcpPortPair();
        // TLS listens on the port after the UDP/TCP one
        try (PeerProcess server = PeerProcess.start(exe, "-A", "127.0.0.1", "-p", Integer.toString(port),
                "-c", pem.resolve("server.pem").toString(), "-j", pem.resolve("server.key").toString(), "-d", "10")) {
            ReliablePlugtest.awaitTcp(port + 1, server, Duration.ofSeconds(10));
            Cli root = Cli.run("-v", "--ca", pem.resolve("ca.pem").toString(), "coaps+tcp://localhost:" + (port + 1) + "/");
            assertEquals(0, root.status(), root.toString());
            assertTrue(root.out().contains("This is a test server made with libcoap"), root.toString());
            Cli untrusted = Cli.run("--ca", pem.resolve("client.pem").toString().replace("client.pem", "server.key"),
                    "coaps+tcp://localhost:" + (port + 1) + "/");
            assertEquals(2, untrusted.status(), "no trusted certificate: " + untrusted);
        }
    }

}
