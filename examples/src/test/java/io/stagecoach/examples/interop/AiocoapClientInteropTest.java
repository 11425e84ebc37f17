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
 * aiocoap 0.4.17's {@code aiocoap-client} against the plugtest server (64-byte blocks). With
 * {@code -vvv} aiocoap logs every incoming message as
 * {@code Incoming message <aiocoap.Message: 2.04 Changed from ..., NON, MID ..>} on stderr, which
 * the code and type cells read. (aiocoap-client has no flag for the Block2 size, so the 16-byte
 * Block2 cell is libcoap's only.)
 */
@Tag("interop")
class AiocoapClientInteropTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
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

    private static List<String> command(String... args) {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_CLIENT);
        // Unbuffered: output is read while the client runs (observe) and must not be lost on SIGTERM.
        List<String> command = new ArrayList<>(List.of("/usr/bin/env", "PYTHONUNBUFFERED=1", exe.toString()));
        command.addAll(List.of(args));
        return command;
    }

    private static PeerRun client(String... args) throws Exception {
        PeerRun r = PeerRun.of(command(args), DEADLINE);
        assertEquals(0, r.exit(), r.describe());
        return r;
    }

    /** Whether aiocoap logged an incoming message with this code and type. */
    private static void assertIncoming(PeerRun r, String code, String type) {
        assertTrue(r.stderr().lines().anyMatch(l -> l.contains("Incoming message <aiocoap.Message: " + code)
                && l.contains(", " + type + ", MID")), "expected an incoming " + type + " " + code + ":\n" + r.describe());
    }

    @Test
    void getTestCon() throws Exception {
        PeerRun r = client("-vvv", plugtest.uri("/test"));
        assertTrue(r.stdout().startsWith("Type: 0 (CON)\nCode: 1 (GET)\nMID: "), r.describe());
        assertIncoming(r, "2.05 Content", "ACK");
    }

    @Test
    void getTestNon() throws Exception {
        PeerRun r = client("-vvv", "--non", plugtest.uri("/test"));
        assertTrue(r.stdout().startsWith("Type: 1 (NON)\nCode: 1 (GET)\nMID: "), r.describe());
        assertIncoming(r, "2.05 Content", "NON");
    }

    @Test
    void putTestCon() throws Exception {
        assertIncoming(client("-vvv", "-m", "PUT", "--payload", "x", plugtest.uri("/test")), "2.04 Changed", "ACK");
    }

    @Test
    void putTestNon() throws Exception {
        assertIncoming(client("-vvv", "--non", "-m", "PUT", "--payload", "x", plugtest.uri("/test")), "2.04 Changed", "NON");
    }

    @Test
    void postTestCon() throws Exception {
        PeerRun r = client("-vvv", "-m", "POST", "--payload", "x", plugtest.uri("/test"));
        assertIncoming(r, "2.01 Created", "ACK");
        assertTrue((r.stdout() + r.stderr()).contains("/location1/location2/location3"), r.describe());
    }

    @Test
    void postTestNon() throws Exception {
        assertIncoming(client("-vvv", "--non", "-m", "POST", "--payload", "x", plugtest.uri("/test")), "2.01 Created", "NON");
    }

    @Test
    void deleteTestCon() throws Exception {
        assertIncoming(client("-vvv", "-m", "DELETE", plugtest.uri("/test")), "2.02 Deleted", "ACK");
    }

    @Test
    void deleteTestNon() throws Exception {
        assertIncoming(client("-vvv", "--non", "-m", "DELETE", plugtest.uri("/test")), "2.02 Deleted", "NON");
    }

    @Test
    void separateResponseAfterEmptyAck() throws Exception {
        PeerRun r = client("-vvv", plugtest.uri("/separate"));
        assertIncoming(r, "EMPTY", "ACK");
        assertIncoming(r, "2.05 Content", "CON");
        assertTrue(r.stdout().startsWith("Type: 0 (CON)\nCode: 1 (GET)\nMID: "), r.describe());
    }

    @Test
    void queryWithThreeArguments() throws Exception {
        PeerRun r = client(plugtest.uri("/query?first=1&second=2&third=3"));
        assertTrue(r.stdout().strip().endsWith("\n?first=1&second=2&third=3"), r.describe());
    }

    @Test
    void block2LargeIn64ByteBlocks() throws Exception {
        PeerRun r = client("-vvv", plugtest.uri("/large"));
        assertEquals(PlugtestText.LARGE, r.stdout().substring(0, Math.min(1280, r.stdout().length())), r.describe());
        // Distinct MIDs: a request aiocoap retransmitted (our answer late by its ACK_TIMEOUT on a
        // loaded machine) is answered again from the deduplication cache with the same MID.
        List<String> answers = r.stderr().lines()
                .filter(l -> l.contains("Incoming message <aiocoap.Message: 2.05 Content")).toList();
        long blocks = answers.stream().map(l -> l.substring(l.lastIndexOf(", MID "))).distinct().count();
        // aiocoap is a port the server has not heard from, and does not return Echo values outside
        // OSCORE: its blocks fit the amplification limit (RFC 7252 §11.3), an SZX at most the
        // server's 64 bytes as TD_COAP_BLOCK_02 allows, the same in every block.
        Matcher first = Pattern.compile("(\\d+) byte\\(s\\) payload").matcher(answers.get(0));
        assertTrue(first.find(), answers.get(0));
        int size = Integer.parseInt(first.group(1));
        assertTrue(size >= 16 && size <= 64 && Integer.bitCount(size) == 1, "block size " + size);
        assertEquals(1280 / size, blocks, "1280 bytes in blocks of " + size + ":\n" + r.describe());
    }

    @Test
    void block1PutOfLargeUpdate(@TempDir Path dir) throws Exception {
        Path body = dir.resolve("largereq.txt");
        Files.writeString(body, PlugtestText.LARGEREQ, StandardCharsets.US_ASCII);
        try {
            // SZX 2: 64-byte blocks from the start.
            PeerRun r = client("-vvv", "-m", "PUT", "--content-format", "text/plain; charset=utf-8",
                    "--payload", "@" + body, "--payload-initial-szx", "2", plugtest.uri("/large-update"));
            assertIncoming(r, "2.31 Continue", "ACK");
            assertIncoming(r, "2.04 Changed", "ACK");
            assertEquals(PlugtestText.LARGEREQ, plugtest.client("/large-update").get().payloadText(),
                    "what the server stored after " + r.describe());
        } finally {
            plugtest.client("/large-update").put(PlugtestText.LARGE, ContentFormat.TEXT_PLAIN);
        }
    }

    /**
     * aiocoap-client 0.4.17 cancels its client-side observation in a {@code finally} right after
     * the registration answer (cli/client.py), so it never prints a notification. The cell
     * therefore checks the message layer in its debug log: the registration answer carries
     * Observe, and three CON 2.05 notifications arrive on its token and are acknowledged (not
     * rejected with RST).
     *
     * <p>aiocoap logs {@code Incoming message ...} when a datagram arrives and only then decides
     * and logs what it answers ({@code Sending empty ACK: acknowledging incoming response}, or
     * {@code Response not recognized - sending RST.}), so the wait is for the third decision
     * line, the last line the assertions read, not for the third incoming message.
     */
    @Test
    void observeObsForThreeNotifications() throws Exception {
        try (PeerProcess p = PeerProcess.start(command("-vvv", "--observe", plugtest.uri("/obs")))) {
            p.awaitOutput(q -> Notifications.of(q.stderr()).decided() >= 3 && registrationPrinted(q.stdout()), DEADLINE);
            String log = p.stderr();
            Notifications n = Notifications.of(log);
            assertTrue(n.decided() >= 3, "three CON notifications answered within " + DEADLINE + ", got " + n + ":\n"
                    + p.describe());
            assertEquals(3, n.acked(), "each of the first three acknowledged with an empty ACK, none rejected with RST ("
                    + n + "):\n" + p.describe());
            assertTrue(log.contains("- Observe (6): 0"), "the registration carried Observe:\n" + p.describe());
            assertTrue(registrationPrinted(p.stdout()), "registration answer printed:\n" + p.describe());
        }
    }

    /** aiocoap prints the registration answer's payload, /obs's time of day (hh:mm:ss). */
    private static boolean registrationPrinted(String stdout) {
        return stdout.matches("(?s)\\d\\d:\\d\\d:\\d\\d.*");
    }

    /**
     * The first three CON 2.05 messages in aiocoap's log and what it answered to each: the first
     * ACK or RST line after an incoming message and before the next one is its answer.
     */
    private record Notifications(int decided, int acked) {

        static Notifications of(String log) {
            int decided = 0;
            int acked = 0;
            boolean pending = false;
            for (String line : (Iterable<String>) log.lines()::iterator) {
                if (decided == 3) {
                    break;
                }
                if (line.contains("Incoming message <aiocoap.Message: ")) {
                    pending = line.contains("Incoming message <aiocoap.Message: 2.05 Content") && line.contains(", CON, MID");
                } else if (pending && line.contains("Sending empty ACK: acknowledging incoming response")) {
                    pending = false;
                    decided++;
                    acked++;
                } else if (pending && line.contains("sending RST")) {
                    pending = false;
                    decided++;
                }
            }
            return new Notifications(decided, acked);
        }
    }

    @Test
    void discoveryFilteredByRtType1() throws Exception {
        PeerRun r = client(plugtest.uri("/.well-known/core?rt=Type1"));
        String links = r.stdout();
        assertTrue(links.contains("</link1>") && links.contains("</link3>"), r.describe());
        assertTrue(!links.contains("</link2>") && !links.contains("</test>"), r.describe());
    }
}
