package io.stagecoach.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./stagecoach client -G COUNT [--rebind]} in-process against a plugtest server with
 * {@code --node-id 7}: each answer printed, the pauses of -G on a virtual clock, and with
 * --rebind every repeat from a new local port.
 */
class ClientRepeatTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Pattern REBOUND = Pattern.compile("rebound to local port (\\d+)");
    private static PlugtestServerRunner server;
    private static String base;

    @BeforeAll
    static void startServer() throws Exception {
        server = PlugtestServerRunner.start(ServerOptions.parse(new String[] {"--port", "0", "--bind", "127.0.0.1",
            "--node-id", "7", "--dtls-port", "0", "--psk", "sensor-1:secretPSK"}));
        base = "coap://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stopServer() {
        server.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void nodeAnswersTheNodeIdAndTheReadyLineNamesIt() {
        assertTrue(server.readyLine().endsWith(", node 7)"), server.readyLine());
        CommandRun r = CommandRun.client(base + "/node");
        assertEquals(0, r.status(), r.toString());
        assertEquals("7\n", r.out(), r.toString());
    }

    @Test
    void repeatSendsCountRequestsASecondApartAndPrintsEachAnswer() throws Exception {
        Run run = Run.start("-G", "3", "-v", base + "/node");
        List<Duration> pauses = run.advancePauses();
        CommandRun r = run.finish();
        assertEquals(0, r.status(), r.toString());
        assertEquals(List.of("7", "7", "7"), r.out().lines().filter(l -> l.equals("7")).collect(Collectors.toList()),
                r.toString());
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(1)), pauses, "two pauses of a second");
        assertEquals(3, r.err().lines().filter(l -> l.startsWith("> CON 0.01 GET")).count(), "three requests: " + r);
        assertFalse(r.err().contains("rebound"), "no --rebind: one port " + r);
    }

    @Test
    void rebindSendsEachRepeatFromANewLocalPort() throws Exception {
        Run run = Run.start("-G", "3", "--rebind", "-v", base + "/node");
        run.advancePauses();
        CommandRun r = run.finish();
        assertEquals(0, r.status(), r.toString());
        assertEquals(3, r.out().lines().filter(l -> l.equals("7")).count(), r.toString());
        Matcher m = REBOUND.matcher(r.err());
        List<Integer> ports = new java.util.ArrayList<>();
        while (m.find()) {
            ports.add(Integer.parseInt(m.group(1)));
        }
        assertEquals(2, ports.size(), "a rebind before each repeat: " + r);
        assertEquals(2, ports.stream().distinct().count(), "each time another port: " + ports);
    }

    /**
     * coaps: every repeat from a new local port on one DTLS session. The server finds the session
     * by the client's records' Connection ID (RFC 9146 §6), so one handshake serves all three
     * requests and the server sees the address change twice.
     */
    @Test
    void rebindKeepsTheDtlsSessionAndItsConnectionId() throws Exception {
        DtlsConnector dtls = server.server().endpoints().stream().map(e -> e.connector())
                .filter(DtlsConnector.class::isInstance).map(DtlsConnector.class::cast).findFirst().orElseThrow();
        long handshakes = dtls.dtlsCounters().handshakesSucceeded();
        long moves = dtls.dtlsCounters().addressChanges();
        Run run = Run.start("-G", "3", "--rebind", "-v", "-u", "sensor-1", "-k", "secretPSK",
                "coaps://127.0.0.1:" + server.port("coaps") + "/node");
        run.advancePauses();
        CommandRun r = run.finish();
        assertEquals(0, r.status(), r.toString());
        assertEquals(3, r.out().lines().filter(l -> l.equals("7")).count(), r.toString());
        assertEquals(2, REBOUND.matcher(r.err()).results().count(), "a rebind before each repeat: " + r);
        assertEquals(1, dtls.dtlsCounters().handshakesSucceeded() - handshakes, "one handshake for all three");
        assertEquals(2, dtls.dtlsCounters().addressChanges() - moves, "the session followed both rebinds");
    }

    @Test
    void aRepeatThatTimesOutDoesNotEndTheOthersAndTheStatusIsTheWorst() throws Exception {
        int silent;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            silent = s.getLocalPort(); // bound and never answering: every request times out
            Run run = Run.start("-G", "2", "-B", "0.3", "coap://127.0.0.1:" + silent + "/node");
            run.advancePauses();
            CommandRun r = run.finish();
            assertEquals(2, r.status(), r.toString());
            assertEquals(2, r.err().lines().filter(l -> l.startsWith("stagecoach client: timeout")).count(), r.toString());
        }
    }

    @Test
    void repeatAndRebindRefuseWhatTheyCannotDo() {
        for (String[] args : List.of(
                new String[] {"-G", "0", base + "/node"},
                new String[] {"-G", "256", base + "/node"},
                new String[] {"-G", "2", "-s", "1", base + "/obs"},
                new String[] {"--rebind", "coap+tcp://127.0.0.1:1/node"})) {
            CommandRun r = CommandRun.client(args);
            assertEquals(2, r.status(), String.join(" ", args) + "\n" + r);
            assertTrue(r.err().startsWith("stagecoach client: "), r.toString());
        }
    }

    /** The command on a thread of its own, its pauses on a virtual clock the test advances. */
    private record Run(Thread thread, VirtualClock clock, ByteArrayOutputStream out, ByteArrayOutputStream err,
            int[] status) {

        static Run start(String... args) {
            VirtualClock clock = new VirtualClock();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int[] status = {-1};
            Thread t = new Thread(() -> status[0] = ClientCommand.run(args, new ByteArrayInputStream(new byte[0]),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                    clock), "test-cli-repeat");
            t.start();
            return new Run(t, clock, out, err, status);
        }

        /**
         * Advances the clock by each pause the command schedules, until it returns (at most
         * {@link #WAIT}); the pauses it saw.
         */
        List<Duration> advancePauses() throws InterruptedException {
            List<Duration> pauses = new java.util.ArrayList<>();
            long end = System.nanoTime() + WAIT.toNanos();
            while (thread.isAlive() && System.nanoTime() - end < 0) {
                if (clock.pendingTasks() > 0) {
                    long before = clock.nanoTime();
                    while (clock.pendingTasks() > 0) {
                        clock.advance(Duration.ofMillis(100));
                    }
                    pauses.add(Duration.ofNanos(clock.nanoTime() - before));
                }
                thread.join(5);
            }
            return pauses;
        }

        CommandRun finish() throws InterruptedException {
            thread.join(WAIT.toMillis());
            assertFalse(thread.isAlive(), "the command returned");
            return new CommandRun(status[0], out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
