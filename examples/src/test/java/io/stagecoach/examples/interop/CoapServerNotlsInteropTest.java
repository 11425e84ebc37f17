package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.interop.CoapPing;
import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stagecoach client} against libcoap 4.3.1's {@code coap-server-notls -d 10} (up to 10
 * resources created by PUT).
 */
@Tag("interop")
class CoapServerNotlsInteropTest {

    private static PeerProcess server;
    private static String base;

    @BeforeAll
    static void startServer() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_SERVER);
        int port = LoopbackPorts.freeUdpAndTcpPort();
        server = PeerProcess.start(exe, "-A", "127.0.0.1", "-p", Integer.toString(port), "-d", "10");
        CoapPing.awaitReady(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), server, Duration.ofSeconds(10));
        base = "coap://127.0.0.1:" + port;
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
            assertFalse(server.isAlive(), "coap-server-notls survived close()");
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void getRoot() {
        Cli r = Cli.run("-v", base + "/");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().startsWith("2.05 Content"), r.toString());
        assertTrue(r.out().contains("This is a test server made with libcoap"), r.toString());
    }

    @Test
    void putCreatesANewResourceThenGetReadsIt() {
        Cli put = Cli.run("-v", "-m", "put", "-t", "text", "-e", "hello libcoap", base + "/created-by-stagecoach");
        assertEquals(0, put.status(), put.toString());
        assertTrue(put.out().startsWith("2.01 Created"), put.toString());
        Cli get = Cli.run(base + "/created-by-stagecoach");
        assertEquals("hello libcoap\n", get.out(), get.toString());
        Cli replace = Cli.run("-v", "-m", "put", "-t", "text", "-e", "again", base + "/created-by-stagecoach");
        assertTrue(replace.out().startsWith("2.04 Changed"), replace.toString());
    }

    @Test
    void wellKnownCoreIsPrettyPrinted() {
        Cli r = Cli.run(base + "/.well-known/core");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("</time>") && l.contains("if=\"clock\"")
                && l.contains("rt=\"ticks\"") && l.contains("obs")), r.toString());
    }

    @Test
    void blockwisePutAndGetOf3000Bytes(@TempDir Path dir) throws Exception {
        byte[] body = new byte[3000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('A' + i % 26);
        }
        Path in = dir.resolve("in.txt");
        Files.write(in, body);
        Cli put = Cli.run("-v", "-b", "64", "-m", "put", "-t", "text", "-f", in.toString(), base + "/big");
        assertEquals(0, put.status(), put.toString());
        // Distinct MIDs (here and below): a block our client retransmitted (the answer late by
        // ACK_TIMEOUT on a loaded machine) is answered twice and traced twice.
        assertEquals(46, put.err().lines().filter(l -> l.startsWith("< ACK 2.31 Continue")).map(CoapServerNotlsInteropTest::mid)
                .distinct().count(),
                "2.31 for blocks 0..45 of 47 (64 bytes each):\n" + put);

        Path out = dir.resolve("out.txt");
        Cli get = Cli.run("-v", "-b", "64", "-o", out.toString(), base + "/big");
        assertEquals(0, get.status(), get.toString());
        assertArrayEquals(body, Files.readAllBytes(out), "the 3000 bytes came back whole");
        assertEquals(47, get.err().lines().filter(l -> l.startsWith("< ACK 2.05 Content")).map(CoapServerNotlsInteropTest::mid)
                .distinct().count(),
                "47 Block2 responses of 64 bytes:\n" + get.err());
        assertEquals("", new String(Files.readAllBytes(out), StandardCharsets.US_ASCII).replaceAll("[A-Z]", ""));
    }

    /** The MID of a traced message ({@code < ACK 2.05 Content mid=31702 token=...}). */
    private static String mid(String traceLine) {
        return traceLine.replaceFirst(".* mid=(\\d+) .*", "$1");
    }
}
