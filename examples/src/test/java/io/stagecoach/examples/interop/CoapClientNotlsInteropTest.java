package io.stagecoach.examples.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libcoap 4.3.1's {@code coap-client-notls} against the plugtest server (64-byte blocks). Cells
 * that check a code run the client with {@code -v 6}, which prints each message on the wire as
 * {@code v:1 t:ACK c:2.04 i:.. {token} [options]} on stdout.
 */
@Tag("interop")
class CoapClientNotlsInteropTest {

    private static final Duration DEADLINE = Duration.ofSeconds(15);
    private static PlugtestFixture plugtest;

    @BeforeAll
    static void start() throws Exception {
        plugtest = new PlugtestFixture();
    }

    @AfterAll
    static void stop() {
        if (plugtest != null) {
            plugtest.close();
        }
    }

    /** Runs coap-client-notls (-B 5: it gives up after 5 s) to completion; fails on a non-zero exit. */
    private static PeerRun client(String... args) throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_CLIENT);
        List<String> command = new ArrayList<>(List.of(exe.toString(), "-B", "5"));
        command.addAll(List.of(args));
        PeerRun r = PeerRun.of(command, DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    private static void assertWire(PeerRun r, String expectedLine) {
        assertTrue(r.stdout().lines().anyMatch(l -> l.startsWith(expectedLine)), "expected a line '" + expectedLine
                + "...' on the wire:\n" + r.describe());
    }

    @Test
    void getTestCon() throws Exception {
        PeerRun r = client("-m", "get", plugtest.uri("/test"));
        assertTrue(r.stdout().startsWith("Type: 0 (CON)\nCode: 1 (GET)\nMID: "), r.describe());
    }

    @Test
    void getTestNon() throws Exception {
        PeerRun r = client("-N", "-m", "get", plugtest.uri("/test"));
        assertTrue(r.stdout().startsWith("Type: 1 (NON)\nCode: 1 (GET)\nMID: "), r.describe());
    }

    @Test
    void putTestCon() throws Exception {
        assertWire(client("-v", "6", "-m", "put", "-e", "x", plugtest.uri("/test")), "v:1 t:ACK c:2.04");
    }

    @Test
    void putTestNon() throws Exception {
        assertWire(client("-v", "6", "-N", "-m", "put", "-e", "x", plugtest.uri("/test")), "v:1 t:NON c:2.04");
    }

    @Test
    void postTestCon() throws Exception {
        assertWire(client("-v", "6", "-m", "post", "-e", "x", plugtest.uri("/test")),
                "v:1 t:ACK c:2.01 i:");
        PeerRun r = client("-v", "6", "-m", "post", "-e", "x", plugtest.uri("/test"));
        assertTrue(r.stdout().contains("Location-Path:location1, Location-Path:location2, Location-Path:location3"),
                r.describe());
    }

    @Test
    void postTestNon() throws Exception {
        assertWire(client("-v", "6", "-N", "-m", "post", "-e", "x", plugtest.uri("/test")), "v:1 t:NON c:2.01");
    }

    @Test
    void deleteTestCon() throws Exception {
        assertWire(client("-v", "6", "-m", "delete", plugtest.uri("/test")), "v:1 t:ACK c:2.02");
    }

    @Test
    void deleteTestNon() throws Exception {
        assertWire(client("-v", "6", "-N", "-m", "delete", plugtest.uri("/test")), "v:1 t:NON c:2.02");
    }

    @Test
    void separateResponseAfterEmptyAck() throws Exception {
        // -v 7 also logs datagram sizes: the empty ACK is the 4-byte datagram (RFC 7252 §5.2.2).
        PeerRun r = client("-v", "7", "-m", "get", plugtest.uri("/separate"));
        assertTrue((r.stdout() + r.stderr()).contains("received 4 bytes"), "empty ACK:\n" + r.describe());
        assertWire(r, "v:1 t:CON c:2.05");
        assertTrue(r.stdout().contains("Type: 0 (CON)\nCode: 1 (GET)\nMID: "), r.describe());
    }

    @Test
    void queryWithThreeArguments() throws Exception {
        PeerRun r = client("-m", "get", plugtest.uri("/query?first=1&second=2&third=3"));
        assertTrue(r.stdout().strip().endsWith("\n?first=1&second=2&third=3"), r.describe());
    }

    @Test
    void block2LargeIn16ByteBlocks() throws Exception {
        PeerRun r = client("-b", "16", "-m", "get", plugtest.uri("/large"));
        assertEquals(PlugtestText.LARGE, r.stdout().substring(0, Math.min(r.stdout().length(), 1280)), r.describe());
        PeerRun wire = client("-v", "6", "-b", "16", "-m", "get", plugtest.uri("/large"));
        assertTrue(wire.stdout().contains("Block2:79/_/16"), "last of 80 16-byte blocks:\n" + wire.describe());
    }

    /**
     * Early negotiation of 64-byte blocks (TD_COAP_BLOCK_01), then late negotiation (TD_COAP_BLOCK_02).
     * Each coap-client run is a new port the server has not heard from, so its blocks fit the
     * amplification limit (RFC 7252 §11.3): the TDs ask for an SZX at most the one asked for (the
     * server's 64 bytes in the late case), the same in every block, and the whole body. The first
     * block's Echo value comes back with libcoap's next request (RFC 9175 §2.4).
     */
    @Test
    void block2LargeIn64ByteBlocks() throws Exception {
        PeerRun r = client("-b", "64", "-m", "get", plugtest.uri("/large"));
        assertEquals(PlugtestText.LARGE, r.stdout().substring(0, Math.min(r.stdout().length(), 1280)), r.describe());
        PeerRun wire = client("-v", "7", "-m", "get", plugtest.uri("/large"));
        List<int[]> answered = blocks(wire, "v:1 t:ACK c:2.05");
        assertTrue(!answered.isEmpty(), "block answers:\n" + wire.describe());
        int size = answered.get(0)[1];
        assertTrue(size >= 16 && size <= 64, "first block size " + size + ":\n" + wire.describe());
        assertTrue(answered.stream().allMatch(b -> b[1] == size), "one size in every block:\n" + wire.describe());
        assertEquals(1280 / size - 1, answered.stream().mapToInt(b -> b[0]).max().orElse(-1),
                "last of 1280 / " + size + " blocks:\n" + wire.describe());
        assertTrue(wire.stdout().lines().anyMatch(l -> l.startsWith("v:1 t:CON c:GET") && l.contains("Block2:1/")
                && l.contains("Echo:")), "the Echo value returned with block 1's request:\n" + wire.describe());
    }

    /** NUM and size of every Block2 on the lines of {@code -v 7}'s trace that start with {@code prefix}. */
    private static List<int[]> blocks(PeerRun r, String prefix) {
        Pattern block2 = Pattern.compile("Block2:(\\d+)/[_M]/(\\d+)");
        List<int[]> out = new ArrayList<>();
        for (String line : (r.stdout() + "\n" + r.stderr()).lines().filter(l -> l.startsWith(prefix)).toList()) {
            Matcher m = block2.matcher(line);
            if (m.find()) {
                out.add(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))});
            }
        }
        return out;
    }

    @Test
    void block1PutOfLargeUpdate(@TempDir Path dir) throws Exception {
        Path body = dir.resolve("largereq.txt");
        Files.writeString(body, PlugtestText.LARGEREQ, StandardCharsets.US_ASCII);
        try {
            PeerRun r = client("-v", "6", "-b", "64", "-m", "put", "-t", "0", "-f", body.toString(),
                    plugtest.uri("/large-update"));
            // libcoap logs the first request and the final answer: 2.04 for block 19 of 20 (M=0).
            assertWire(r, "v:1 t:ACK c:2.04");
            assertTrue(r.stdout().contains("Block1:19/_/64"), r.describe());
            assertEquals(PlugtestText.LARGEREQ, plugtest.client("/large-update").get().payloadText(),
                    "what the server stored after " + r.describe());
        } finally {
            plugtest.client("/large-update").put(PlugtestText.LARGE, ContentFormat.TEXT_PLAIN);
        }
    }

    /**
     * Registration answer and three notifications, printed by coap-client as /obs's time of day
     * each. {@code -s 60} only bounds the run: the cell waits for the fourth value on stdout (at
     * most {@link #DEADLINE}), then ends coap-client, so no window of real time decides how many
     * notifications fit. The ended client leaves its observe relation behind until the server's
     * notifications go unacknowledged (RFC 7641 §4.5), hence a server of the cell's own.
     */
    @Test
    void observeObsForThreeNotifications() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_CLIENT);
        try (PlugtestFixture own = new PlugtestFixture();
                PeerProcess p = PeerProcess.start(exe, "-B", "60", "-s", "60", "-m", "get", own.uri("/obs"))) {
            p.awaitOutput(q -> values(q.stdout()) >= 4, DEADLINE);
            assertTrue(values(p.stdout()) >= 4, "registration answer and 3 notifications within " + DEADLINE + ", got "
                    + values(p.stdout()) + ":\n" + p.describe());
        }
    }

    /**
     * {@code -s 1}: coap-client observes for a second, then deregisters with a GET carrying
     * Observe=1 (RFC 7641 §3.6; {@code -v 7} prints it) and exits. How many notifications fit in
     * that second does not matter here (the cell above counts them).
     */
    @Test
    void observeEndsWithADeregistrationTheServerHonours() throws Exception {
        PeerRun r = client("-v", "7", "-s", "1", "-m", "get", plugtest.uri("/obs"));
        String wire = r.stdout() + "\n" + r.stderr();
        // Piggybacked once the server knows the client's address; to a new port, a CON separate
        // response whose ACK verifies the address (RFC 7252 §11.3). TD_COAP_OBS_01 allows either.
        assertTrue(wire.lines().anyMatch(l -> (l.startsWith("v:1 t:ACK c:2.05") || l.startsWith("v:1 t:CON c:2.05"))
                && l.contains("Observe:")), "registration answer with Observe:\n" + r.describe());
        assertTrue(wire.lines().anyMatch(l -> l.startsWith("v:1 t:CON c:GET") && l.contains("Observe:1,")),
                "deregistering GET with Observe=1:\n" + r.describe());
        // coap-client may exit as soon as its deregistering GET is sent; the server handles it a moment later.
        assertTrue(plugtest.awaitObservers("obs", 0, DEADLINE),
                "the server still has " + plugtest.observers("obs") + " observer(s) of /obs " + DEADLINE
                + " after coap-client deregistered:\n" + r.describe());
    }

    private static int values(String stdout) {
        Matcher times = Pattern.compile("\\d\\d:\\d\\d:\\d\\d").matcher(stdout);
        int values = 0;
        while (times.find()) {
            values++;
        }
        return values;
    }

    @Test
    void discoveryFilteredByRtType1() throws Exception {
        PeerRun r = client("-m", "get", plugtest.uri("/.well-known/core?rt=Type1"));
        String links = r.stdout().strip();
        assertTrue(links.contains("</link1>") && links.contains("</link3>"), r.describe());
        assertTrue(!links.contains("</link2>") && !links.contains("</test>"), r.describe());
    }
}
