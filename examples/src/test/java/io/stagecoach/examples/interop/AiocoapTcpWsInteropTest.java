package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * CoAP over TCP and WebSockets (RFC 8323) with aiocoap 0.4.17 (websockets 15.0.1):
 * {@code aiocoap-client} against the plugtest server, and {@code ./stagecoach client} against
 * {@code aiocoap-fileserver} with its {@code tcpserver} and {@code ws} transports (aiocoap binds
 * WebSockets to the given port + 3000).
 */
@Tag("interop")
class AiocoapTcpWsInteropTest {

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

    private static PeerRun client(String... args) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_CLIENT);
        List<String> command = new ArrayList<>(List.of("/usr/bin/env", "PYTHONUNBUFFERED=1", exe.toString()));
        command.addAll(List.of(args));
        PeerRun r = PeerRun.of(command, DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap+tcp", "coap+ws"})
    void aiocoapClientGetsPutsAndFetchesBlockwise(String scheme) throws Exception {
        PeerRun get = client(plugtest.uri(scheme, "/test"));
        assertTrue(get.stdout().startsWith("Type: none\nCode: 1 (GET)\nMID: -1"), get.describe());
        PeerRun large = client(plugtest.uri(scheme, "/large"));
        assertEquals(PlugtestText.LARGE, large.stdout().strip() + "\n", large.describe());
        PeerRun put = client("-m", "PUT", "--content-format", "text/plain;charset=utf-8", "--payload", "z".repeat(2000),
                plugtest.uri(scheme, "/large-update"));
        assertTrue(put.stderr().isEmpty() || !put.stderr().contains("Error"), put.describe());
        assertEquals("z".repeat(2000), client(plugtest.uri(scheme, "/large-update")).stdout().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap+tcp", "coap+ws"})
    void aiocoapClientObserves(String scheme) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_CLIENT);
        try (PeerProcess p = PeerProcess.start(List.of("/usr/bin/env", "PYTHONUNBUFFERED=1", exe.toString(),
                "-vvv", "--observe", plugtest.uri(scheme, "/obs")))) {
            // aiocoap-client 0.4.17 prints the first answer only (it cancels the observation locally
            // once that arrives, over UDP too); its transport logs every notification that arrives
            Await.until(() -> notifications(p.stderr()) >= 4, Duration.ofSeconds(10));
            assertTrue(notifications(p.stderr()) >= 4, "notifications every 200 ms:\n" + p.describe());
            assertTrue(p.stdout().matches("(?s)\\d\\d:\\d\\d:\\d\\d.*"), "registration answer printed:\n" + p.describe());
            assertEquals(1, plugtest.observers("obs"));
        }
        Await.until(() -> plugtest.observers("obs") == 0, Duration.ofSeconds(5));
        assertEquals(0, plugtest.observers("obs"), "the relation ended with the client's connection");
    }

    private static long notifications(String log) {
        // TCP logs "Received message: <...2.05 Content from <TcpConnection...", WebSockets only the match
        return log.lines().filter(l -> l.startsWith("DEBUG:coap:Response <aiocoap.Message: 2.05 Content from <")
                && l.contains(" matched to request ")).count();
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap+tcp", "coap+ws"})
    void ourClientAgainstAiocoapFileserver(String scheme, @TempDir Path root) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_FILESERVER);
        Files.writeString(root.resolve("hello.txt"), "hello from aiocoap\n");
        int port = LoopbackPorts.freeUdpAndTcpPort();
        int listening = scheme.equals("coap+ws") ? port + 3000 : port;
        try (PeerProcess server = PeerProcess.start(List.of("/usr/bin/env", "AIOCOAP_SERVER_TRANSPORT=tcpserver:ws",
                "PYTHONUNBUFFERED=1", exe.toString(), "--bind", "127.0.0.1:" + port, "--write", root.toString()))) {
            ReliablePlugtest.awaitTcp(listening, server, Duration.ofSeconds(15));
            String base = scheme + "://127.0.0.1:" + listening;
            Cli get = Cli.run(base + "/hello.txt");
            assertEquals("hello from aiocoap\n", get.out(), get.toString());
            String big = "w".repeat(3000);
            Cli put = Cli.run("-m", "put", "-t", "text", "-e", big, base + "/written.txt");
            assertEquals(0, put.status(), put.toString());
            assertEquals(big, Files.readString(root.resolve("written.txt"), StandardCharsets.UTF_8));
            Cli back = Cli.run(base + "/written.txt");
            assertEquals(big + "\n", back.out(), back.toString());
        }
    }
}
