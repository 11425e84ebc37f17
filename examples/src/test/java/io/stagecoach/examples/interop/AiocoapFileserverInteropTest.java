package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.interop.CoapPing;
import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stagecoach's client against aiocoap 0.4.17's {@code aiocoap-fileserver} serving a temporary
 * directory. aiocoap-fileserver notices file changes by polling every 10 s, so the observe cell
 * waits up to 25 s for its notification.
 */
@Tag("interop")
class AiocoapFileserverInteropTest {

    @TempDir
    static Path root;
    private static PeerProcess server;
    private static String base;
    private static byte[] fiveK;

    @BeforeAll
    static void startServer() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_FILESERVER);
        fiveK = new byte[5 * 1024];
        for (int i = 0; i < fiveK.length; i++) {
            fiveK[i] = (byte) (i * 31 + 7);
        }
        Files.write(root.resolve("five-k.bin"), fiveK);
        Files.writeString(root.resolve("watched.txt"), "first version\n");
        int port = LoopbackPorts.freeUdpAndTcpPort();
        server = PeerProcess.start(exe, "--bind", "127.0.0.1:" + port, root.toString());
        CoapPing.awaitReady(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), server, Duration.ofSeconds(15));
        base = "coap://127.0.0.1:" + port;
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
            assertFalse(server.isAlive(), "aiocoap-fileserver survived close()");
        }
    }

    @Test
    void get5kFileBlockwiseIn256ByteBlocks(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("copy.bin");
        Cli r = Cli.run("-v", "-b", "256", "-o", out.toString(), base + "/five-k.bin");
        assertEquals(0, r.status(), r.toString());
        assertArrayEquals(fiveK, Files.readAllBytes(out), "5120 bytes arrived whole");
        // Distinct MIDs: a block our client retransmitted (the answer late by ACK_TIMEOUT on a
        // loaded machine) is answered twice and traced twice.
        assertEquals(20, r.err().lines().filter(l -> l.startsWith("< ACK 2.05 Content"))
                .map(l -> l.replaceFirst(".* mid=(\\d+) .*", "$1")).distinct().count(),
                "20 Block2 responses of 256 bytes:\n" + r.err());
    }

    @Test
    void observeAFileWhileItChanges() throws Exception {
        CoapEndpoint endpoint = CoapEndpoint.builder().connector(UdpConnector.builder()
                .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build()).build();
        endpoint.start();
        try {
            List<CoapResponse> seen = new CopyOnWriteArrayList<>();
            CompletableFuture<CoapResponse> registered = new CompletableFuture<>();
            CompletableFuture<CoapResponse> changed = new CompletableFuture<>();
            CoapClient client = new CoapClient(base + "/watched.txt", endpoint).timeout(Duration.ofSeconds(10));
            CoapObserveRelation relation = client.observe(new CoapHandler() {
                @Override
                public void onLoad(CoapResponse response) {
                    seen.add(response);
                    registered.complete(response);
                    if (response.payloadText().startsWith("second")) {
                        changed.complete(response);
                    }
                }

                @Override
                public void onError(Throwable error) {
                    registered.completeExceptionally(error);
                    changed.completeExceptionally(error);
                }
            });
            CoapResponse first = registered.get(10, TimeUnit.SECONDS);
            assertEquals("first version\n", first.payloadText());
            assertTrue(first.options().observe() >= 0, "registered: the answer carries Observe " + first.options());

            Files.writeString(root.resolve("watched.txt"), "second version, longer\n", StandardCharsets.UTF_8);
            CoapResponse notification = changed.get(25, TimeUnit.SECONDS); // the fileserver polls every 10 s
            assertEquals("second version, longer\n", notification.payloadText(), "notifications: " + seen);
            assertTrue(notification.options().observe() > first.options().observe(), "Observe increased");
            relation.proactiveCancel().get(10, TimeUnit.SECONDS);
        } finally {
            endpoint.destroy();
        }
    }
}
