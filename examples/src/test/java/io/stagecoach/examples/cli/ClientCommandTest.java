package io.stagecoach.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import io.stagecoach.examples.plugtest.PlugtestText;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stagecoach client} run in-process against the plugtest server on a loopback port (the
 * same server {@code ./stagecoach server} starts). Each test states the command line; the
 * assertion messages carry exit status, stdout and stderr.
 */
class ClientCommandTest {

    /** Bound on waiting for what the server sends: generous, its expiry fails the test. */
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static PlugtestServerRunner server;
    private static String base;

    @BeforeAll
    static void startServer() throws Exception {
        server = PlugtestServerRunner.start(ServerOptions.parse(new String[] {"--port", "0", "--bind", "127.0.0.1", "--notify-ms", "200"}));
        base = "coap://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stopServer() {
        server.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void getPrintsThePayloadAndExitsZero() {
        CommandRun r = CommandRun.client(base + "/test", "-T", "cafe");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().startsWith("Type: 0 (CON)\nCode: 1 (GET)\nMID: "), r.toString());
        assertTrue(r.out().endsWith("\nToken: cafe\n"), r.toString());
        assertEquals("", r.err(), r.toString());
    }

    @Test
    void verboseShowsTheWireOnStderrAndCodeAndOptionsOnStdout() {
        CommandRun r = CommandRun.client("-v", base + "/test");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().startsWith("2.05 Content\n  Content-Format=0\n  Max-Age=30\nType: 0 (CON)"), r.toString());
        assertTrue(r.err().contains("> CON 0.01 GET") && r.err().contains("< ACK 2.05 Content"), r.toString());
    }

    @Test
    void notFoundExitsOneAndMethodNotAllowedToo() {
        CommandRun missing = CommandRun.client(base + "/nothing");
        assertEquals(1, missing.status(), missing.toString());
        assertEquals("4.04 Not Found\n", missing.err(), missing.toString());
        CommandRun ipatch = CommandRun.client("--method", "ipatch", "-e", "x", base + "/test");
        assertEquals(1, ipatch.status(), ipatch.toString());
        CommandRun verbose = CommandRun.client("-v", "-m", "delete", base + "/query");
        assertTrue(verbose.out().startsWith("4.05 Method Not Allowed"), verbose.toString());
    }

    @Test
    void discoveryIsPrettyPrintedOneLinkPerLine() {
        CommandRun r = CommandRun.client(base + "/.well-known/core?rt=Type1");
        assertEquals(0, r.status(), r.toString());
        assertEquals("</link1>  if=\"If1\"  rt=\"Type1 Type2\"  title=\"Link test resource\"\n"
                + "</link3>  if=\"foo\"  rt=\"Type1 Type3\"  title=\"Link test resource\"\n", r.out(), r.toString());
    }

    @Test
    void putFromStdinThenGetIn16ByteBlocks() {
        CommandRun put = CommandRun.clientWithStdin(PlugtestText.LARGEREQ, "-m", "put", "-t", "text", "-f", "-", "-b", "64",
                base + "/large-update");
        assertEquals(0, put.status(), put.toString());
        CommandRun get = CommandRun.client("--block-size", "16", "-v", base + "/large-update");
        assertEquals(0, get.status(), get.toString());
        assertTrue(get.out().endsWith(PlugtestText.LARGEREQ), get.toString());
        // Distinct MIDs: a block the client retransmitted (the answer late by ACK_TIMEOUT on a
        // loaded machine) is answered twice and traced twice.
        assertEquals(80, get.err().lines().filter(l -> l.startsWith("< ACK 2.05"))
                .map(l -> l.replaceFirst(".* mid=(\\d+) .*", "$1")).distinct().count(), "80 blocks of 16 bytes: " + get);
        CommandRun back = CommandRun.client("-m", "put", "-t", "0", "-e", PlugtestText.LARGE, base + "/large-update");
        assertEquals(0, back.status(), back.toString());
    }

    @Test
    void payloadFileAndOutputFile(@TempDir Path dir) throws Exception {
        Path in = dir.resolve("in.txt");
        Files.writeString(in, "make me loud");
        Path out = dir.resolve("out.txt");
        CommandRun r = CommandRun.client("--method=post", "--content-format=text", "--payload-file", in.toString(),
                "--output", out.toString(), base + "/large-post");
        assertEquals(0, r.status(), r.toString());
        assertEquals("", r.out(), "payload went to the file");
        assertEquals("MAKE ME LOUD", Files.readString(out, StandardCharsets.UTF_8));
    }

    @Test
    void acceptByNameAndOptionsByNumberInDecimalAndHex() {
        CommandRun json = CommandRun.client("-A", "json", base + "/multi-format");
        assertTrue(json.out().startsWith("{\"type\":\"CON\",\"code\":\"GET\""), json.toString());
        CommandRun decimal = CommandRun.client("-O", "17,41", base + "/multi-format");
        assertTrue(decimal.out().startsWith("<msg type=\"CON\""), decimal.toString());
        CommandRun hex = CommandRun.client("-O", "17,0x32", base + "/multi-format");
        assertTrue(hex.out().startsWith("{\"type\""), "Accept 0x32 = 50: " + hex);
        CommandRun query = CommandRun.client("-O", "15,extra=1", base + "/query?a=1");
        assertTrue(query.out().endsWith("\n?a=1&extra=1\n"), query.toString());
    }

    @Test
    void nonRequestGetsANonAnswer() {
        CommandRun r = CommandRun.client("-N", "-v", base + "/test");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("Type: 1 (NON)"), r.toString());
        assertTrue(r.err().contains("< NON 2.05 Content"), r.toString());
    }

    @Test
    void timeoutExitsTwoWithOneLineReason() throws Exception {
        // A socket that receives and never answers; 0.3 s of real time is the bound on this test.
        try (DatagramSocket silent = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CommandRun r = CommandRun.client("-B", "0.3", "coap://127.0.0.1:" + silent.getLocalPort() + "/x");
            assertEquals(2, r.status(), r.toString());
            assertTrue(r.err().startsWith("stagecoach client: timeout: no response within 0.3 s"), r.toString());
            assertEquals(1, r.err().lines().count(), r.toString());
        }
    }

    @Test
    void badCommandLinesExitTwoWithOneLineReason() {
        String[][] lines = {
            {},
            {"-m", "brew", base + "/test"},
            {"-b", "100", base + "/test"},
            {"-O", "x,1", base + "/test"},
            {"-T", "xyz", base + "/test"},
            {"-t", "nonsense", base + "/test"},
            {"--bogus", base + "/test"},
            {"-B"},
            {"http://example.com/"},
            {"-f", "/nonexistent/file", "-m", "put", base + "/test"},
        };
        for (String[] args : lines) {
            CommandRun r = CommandRun.client(args);
            assertEquals(2, r.status(), String.join(" ", args) + "\n" + r);
            assertTrue(r.err().startsWith("stagecoach client: "), r.toString());
            assertEquals(1, r.err().lines().count(), "one line: " + r);
        }
    }

    @Test
    void observePrintsTheRegistrationAnswerAndEachNotificationThenDeregisters() throws Exception {
        // -s 2 on a virtual clock: the two seconds pass once the registration answer and three
        // notifications (/obs changes every 200 ms here) have been printed, however long they take.
        VirtualClock window = new VirtualClock();
        WatchedOutput out = new WatchedOutput();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int[] status = {-1};
        Thread cli = new Thread(() -> status[0] = ClientCommand.run(new String[] {"-s", "2", "-v", base + "/obs"},
                new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), window), "test-cli-observe");
        cli.start();
        try {
            assertTrue(out.awaitLines("2.05 Content", 4, WAIT), "registration answer and 3 notifications within "
                    + WAIT + ":\n" + out + "--- stderr ---\n" + err);
        } finally {
            window.advance(Duration.ofSeconds(2)); // ends the observation even when the assertion failed
            cli.join(WAIT.toMillis());
        }
        CommandRun r = new CommandRun(status[0], out.toString(), err.toString(StandardCharsets.UTF_8));
        assertFalse(cli.isAlive(), "the command returned after its window: " + r);
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().lines().filter(l -> l.equals("2.05 Content")).count() >= 4, r.toString());
        assertTrue(r.err().contains("Observe=1"), "deregistration GET with Observe=1 on the wire: " + r);
        // The command waits up to 2 s for the deregistration's answer, then returns anyway: the
        // server may handle the GET a moment later on a loaded machine.
        assertTrue(awaitObservers(0), server.observers("obs") + " observer(s) left after " + r);
    }

    /** Waits, at most {@link #WAIT}, until /obs has {@code count} observers; returns whether it came to that. */
    private static boolean awaitObservers(int count) throws InterruptedException {
        return Await.until(() -> server.observers("obs") == count, WAIT);
    }

    /** An output stream the test can wait on: it wakes waiters whenever something is written. */
    private static final class WatchedOutput extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            notifyAll();
        }

        /** Waits until {@code n} lines equal {@code line}, at most {@code timeout}; whether they did. */
        synchronized boolean awaitLines(String line, int n, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (toString().lines().filter(line::equals).count() < n) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }

        @Override
        public synchronized String toString() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void observeOfAResourceThatIsNotObservableEndsAfterTheAnswer() {
        CommandRun r = CommandRun.client("-s", "30", base + "/benchmark");
        assertEquals(0, r.status(), r.toString());
        assertEquals("hello world\n", r.out(), r.toString());
        CommandRun missing = CommandRun.client("-s", "30", base + "/nothing");
        assertEquals(1, missing.status(), missing.toString());
        assertEquals("4.04 Not Found\n", missing.err(), missing.toString());
    }

    @Test
    void helpExitsZero() {
        CommandRun r = CommandRun.client("--help");
        assertEquals(0, r.status());
        assertTrue(r.out().contains("-O, --option NUM,VALUE"), r.out());
    }
}
