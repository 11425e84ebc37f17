package io.stagecoach.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stagecoach server}: the real thing in a child JVM (ready line, serving, SIGTERM exit 0),
 * and its option and configuration handling in-process.
 */
class ServerCommandTest {

    /** What {@code --connector auto} (the default) picks in this JVM: Netty's epoll connector on Linux. */
    static final String DEFAULT_CONNECTOR = (CoapEndpointBuilder.autoUsesNetty() ? "netty-epoll" : "udp") + ", default, ";

    private static final Pattern READY = Pattern.compile("listening on coap://127\\.0\\.0\\.1:(\\d+) \\(connector "
            + Pattern.quote(DEFAULT_CONNECTOR) + ".*\\)");

    @Test
    void childJvmPrintsOneReadyLineServesAndExitsZeroOnSigterm(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The shipped logback.xml (stderr), not a test-jar's logback-test.xml.
        String logback = Path.of(ServerCommandTest.class.getResource("/logback.xml").toURI()).toString();
        Process p = new ProcessBuilder(java, "-Dlogback.configurationFile=" + logback, "-cp", System.getProperty("java.class.path"),
                "io.stagecoach.examples.Launcher", "server", "--port", "0", "--bind", "127.0.0.1", "--notify-ms", "200")
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            p.getOutputStream().close();
            // Bounded wait for the process to print its line (JVM start: a second or two).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.readString(out).contains("\n") && p.isAlive() && System.nanoTime() < deadline) {
                p.waitFor(50, TimeUnit.MILLISECONDS);
            }
            String stdout = Files.readString(out);
            Matcher m = READY.matcher(stdout.strip());
            assertTrue(m.matches(), "ready line: " + stdout + "\nstderr: " + Files.readString(err));
            CommandRun get = CommandRun.client("coap://127.0.0.1:" + m.group(1) + "/benchmark");
            assertEquals("hello world\n", get.out(), get.toString());

            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(15, TimeUnit.SECONDS), "server still running 15 s after SIGTERM");
            assertEquals(0, p.exitValue(), "exit status after SIGTERM; stderr:\n" + Files.readString(err));
            assertEquals(1, Files.readString(out).lines().count(), "exactly one line on stdout: " + Files.readString(out));
            assertTrue(Files.readString(err).contains("signal received, stopping"), Files.readString(err));
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * {@code --drain}: on SIGTERM the child JVM tells its observer 5.03 with Max-Age (RFC 7641
     * §3.2: the observation ends) before it stops, and still exits 0.
     */
    @Test
    void sigtermWithDrainTellsObserversFiveOhThreeAndExitsZero(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String logback = Path.of(ServerCommandTest.class.getResource("/logback.xml").toURI()).toString();
        Process p = new ProcessBuilder(java, "-Dlogback.configurationFile=" + logback, "-cp", System.getProperty("java.class.path"),
                "io.stagecoach.examples.Launcher", "server", "--port", "0", "--bind", "127.0.0.1", "--notify-ms", "60000",
                "--node-id", "3", "--drain", "10")
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try (CoapClient observer = CoapClient.builder("coap://127.0.0.1:1/obs").build()) {
            p.getOutputStream().close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.readString(out).contains("\n") && p.isAlive() && System.nanoTime() < deadline) {
                p.waitFor(50, TimeUnit.MILLISECONDS);
            }
            Matcher m = Pattern.compile("listening on coap://127\\.0\\.0\\.1:(\\d+) \\(.*, node 3\\)")
                    .matcher(Files.readString(out).strip());
            assertTrue(m.matches(), "ready line: " + Files.readString(out) + "\nstderr: " + Files.readString(err));
            observer.uri("coap://127.0.0.1:" + m.group(1) + "/obs");
            BlockingQueue<CoapResponse> seen = new LinkedBlockingQueue<>();
            observer.observeAndWait(new CoapHandler() {
                @Override
                public void onLoad(CoapResponse response) {
                    seen.add(response);
                }

                @Override
                public void onError(Throwable error) {
                }
            });
            assertTrue(seen.take().options().observe() >= 0, "registered");

            p.destroy(); // SIGTERM: drain, then stop
            CoapResponse last = seen.poll(15, TimeUnit.SECONDS);
            assertTrue(last != null, "a final notification; stderr:\n" + Files.readString(err));
            assertEquals(Code.SERVICE_UNAVAILABLE, last.code(), last.toString());
            assertEquals(2, last.options().maxAge(), "Max-Age: coap.overload-max-age, when to register again");
            assertTrue(last.options().observe() < 0, "no Observe: the observation ended (RFC 7641 3.2)");
            assertTrue(p.waitFor(15, TimeUnit.SECONDS), "server still running 15 s after SIGTERM");
            assertEquals(0, p.exitValue(), "exit status after SIGTERM; stderr:\n" + Files.readString(err));
            assertTrue(Files.readString(err).contains("drained, stopping"), Files.readString(err));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void configFileIsLoadedAndFlagsOverrideIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, "coap.blockwise.preferred-block-size=128\ncoap.blockwise.max-message-size=128\n"
                + "udp.receiver-threads=3\n");
        Configuration fromFile = PlugtestServerRunner.configuration(
                ServerOptions.parse(new String[] {"--config", file.toString()}));
        assertEquals(128, fromFile.get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE), "the file's block size stays");
        assertEquals(3, fromFile.get(UdpConfig.RECEIVER_THREADS));

        Configuration flags = PlugtestServerRunner.configuration(ServerOptions.parse(new String[] {
            "--config", file.toString(), "--block-size", "32", "--receivers", "2", "--senders", "4", "--protocol-threads", "5"}));
        assertEquals(32, flags.get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE));
        assertEquals(32, flags.get(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE));
        assertEquals(2, flags.get(UdpConfig.RECEIVER_THREADS));
        assertEquals(4, flags.get(UdpConfig.SENDER_THREADS));
        assertEquals(5, flags.get(CoapConfig.PROTOCOL_THREADS));
        assertEquals(0, PlugtestServerRunner.configuration(ServerOptions.parse(new String[] {"--protocol-threads", "0"}))
                .get(CoapConfig.PROTOCOL_THREADS), "--protocol-threads 0: protocol stage inline on the receive thread");

        Configuration plain = PlugtestServerRunner.configuration(ServerOptions.parse(new String[0]));
        assertEquals(64, plain.get(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE), "the plugtest's B = 64");
        assertEquals(64, plain.get(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE));
    }

    @Test
    void badOptionsAndBadConfigExitTwoWithOneLine(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "coap.no-such-key=1\n");
        List<String[]> lines = List.of(
                new String[] {"--port", "70000"},
                new String[] {"--connector", "dpdk"},
                new String[] {"--block-size", "48"},
                new String[] {"--faults", "1.5"},
                new String[] {"--faults", "x"},
                new String[] {"--fault-kinds", "SEGFAULT"},
                new String[] {"--fault-seed", "y"},
                new String[] {"--bogus"},
                new String[] {"--port"},
                new String[] {"--config", dir.resolve("missing.properties").toString(), "--port", "0"},
                new String[] {"--config", bad.toString(), "--port", "0"});
        for (String[] args : lines) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = ServerCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String seen = String.join(" ", args) + " -> exit " + status + ", stderr: " + err;
            assertEquals(2, status, seen);
            assertEquals("", out.toString(StandardCharsets.UTF_8), seen);
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("stagecoach server: "), seen);
        }
    }

    @Test
    void helpListsEveryFlag() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = ServerCommand.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, status);
        String help = out.toString(StandardCharsets.UTF_8);
        for (String flag : List.of("--port", "--bind", "--connector", "--receivers", "--senders", "--protocol-threads",
                "--notify-ms", "--block-size", "--config", "--faults", "--fault-seed", "--fault-kinds",
                "--obs-reset-secret", "--node-id", "--drain")) {
            assertTrue(help.contains(flag), flag + " in\n" + help);
        }
    }

    @Test
    void faultsFlagInstallsTheInjectorOnlyWhenGiven() throws Exception {
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(new String[] {
            "--port", "0", "--bind", "127.0.0.1", "--faults", "0.01", "--fault-kinds", "handler_throws,LAYER_THROWS"}))) {
            assertTrue(runner.readyLine().contains("faults 0.01 [HANDLER_THROWS, LAYER_THROWS]"), runner.readyLine());
        }
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "127.0.0.1"}))) {
            assertFalse(runner.readyLine().contains("faults"), "off by default: " + runner.readyLine());
        }
    }

    /**
     * POST /obs-reset works only with the secret given by --obs-reset-secret; without the flag no
     * payload works, the plugtest's "sesame" included; an empty secret is a usage error.
     */
    @Test
    void obsResetSecretComesFromTheCommandLine() throws Exception {
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(new String[] {
            "--port", "0", "--bind", "127.0.0.1", "--obs-reset-secret", "s3cret"}))) {
            String reset = "coap://127.0.0.1:" + runner.port() + "/obs-reset";
            CommandRun wrong = CommandRun.client("-m", "post", "-e", "sesame", reset);
            assertEquals("4.03 Forbidden\n", wrong.err(), wrong.toString());
            CommandRun right = CommandRun.client("-m", "post", "-e", "s3cret", reset);
            assertEquals(0, right.status(), right.toString());
        }
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "127.0.0.1"}))) {
            CommandRun sesame = CommandRun.client("-m", "post", "-e", "sesame", "coap://127.0.0.1:" + runner.port() + "/obs-reset");
            assertEquals(1, sesame.status(), sesame.toString());
            assertEquals("reset disabled: start the server with --obs-reset-secret\n", sesame.out(), sesame.toString());
        }
        UsageException empty = assertThrows(UsageException.class,
                () -> ServerOptions.parse(new String[] {"--obs-reset-secret", ""}));
        assertTrue(empty.getMessage().contains("must not be empty"), empty.getMessage());
    }

    @Test
    void readyLineShowsIpv6LiteralsInBrackets() throws Exception {
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "::1"}))) {
            assertTrue(runner.readyLine().startsWith("listening on coap://[::1]:" + runner.port() + " (connector " + DEFAULT_CONNECTOR),
                    runner.readyLine());
            CommandRun get = CommandRun.client("coap://[::1]:" + runner.port() + "/benchmark");
            assertEquals("hello world\n", get.out(), "IPv6 loopback: " + get);
        }
    }

    @Test
    void nettyConnectorServesToo() throws Exception {
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "127.0.0.1", "--connector", "netty"}))) {
            assertTrue(runner.readyLine().contains("(connector netty-"),
                    runner.readyLine());
            assertFalse(runner.readyLine().contains("default"), "asked for: " + runner.readyLine());
            CommandRun get = CommandRun.client("coap://127.0.0.1:" + runner.port() + "/benchmark");
            assertEquals("hello world\n", get.out(), get.toString());
        }
    }

    /** With --ws-port the last ready line names the explorer's URL, and the page is served there. */
    @Test
    void wsPortServesTheExplorerAndPrintsItsUrl() throws Exception {
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "127.0.0.1", "--ws-port", "0"}))) {
            int ws = runner.port("coap+ws");
            List<String> lines = runner.readyLines();
            assertEquals("listening on coap+ws://127.0.0.1:" + ws, lines.get(1), lines.toString());
            assertEquals("explorer at http://127.0.0.1:" + ws + "/ (open it in a browser; docs/explorer.md)",
                    lines.get(2), lines.toString());
            assertEquals(3, lines.size(), lines.toString());
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), ws)) {
                s.setSoTimeout(5000);
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 200 OK") && answer.contains("<title>CoAP explorer"), answer);
            }
        }
        try (PlugtestServerRunner runner = PlugtestServerRunner.start(ServerOptions.parse(
                new String[] {"--port", "0", "--bind", "127.0.0.1", "--tcp-port", "0"}))) {
            assertTrue(runner.readyLines().stream().noneMatch(l -> l.contains("explorer")),
                    "no explorer without coap+ws: " + runner.readyLines());
        }
    }
}
