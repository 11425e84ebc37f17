package io.stagecoach.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.dtls.DtlsConfig;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stagecoach server --dtls-port --psk --cert --key --ca --tls-port} and
 * {@code ./stagecoach client} with libcoap's security flags ({@code -u -k} for PSK,
 * {@code -c -j -C} for certificates) and the long ones ({@code --cert --key --ca}), over DTLS
 * (coaps) and TLS (coaps+tcp) alike, in-process against one server.
 */
class SecureCliTest {

    @TempDir
    static Path pem;
    private static PlugtestServerRunner runner;
    private static String coaps;
    private static String coapsTcp;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates.create().write(pem);
        runner = PlugtestServerRunner.start(ServerOptions.parse(new String[] {
            "--port", "0", "--bind", "127.0.0.1", "--dtls-port", "0", "--tls-port", "0",
            "--psk", "sensor-1:secretPSK", "--psk", "raw:0x0102ab",
            "--cert", file("server.pem"), "--key", file("server.key"), "--ca", file("ca.pem")}));
        coaps = "coaps://127.0.0.1:" + runner.port("coaps");
        coapsTcp = "coaps+tcp://127.0.0.1:" + runner.port("coaps+tcp");
    }

    @AfterAll
    static void stop() {
        if (runner != null) {
            runner.close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static String file(String name) {
        return pem.resolve(name).toString();
    }

    private static CommandRun ok(String... args) {
        CommandRun r = CommandRun.client(args);
        assertEquals(0, r.status(), String.join(" ", args) + ": " + r);
        return r;
    }

    @Test
    void readyLinesNameEveryTransportCoapFirst() {
        List<String> lines = runner.readyLines();
        assertTrue(lines.get(0).startsWith("listening on coap://127.0.0.1:" + runner.port() + " (connector " + ServerCommandTest.DEFAULT_CONNECTOR),
                lines.toString());
        assertEquals("listening on " + coaps, lines.get(1));
        assertEquals("listening on " + coapsTcp, lines.get(2));
    }

    @Test
    void pskWithLibcoapFlagsTextAndHexKeys() {
        assertEquals("hello world\n", ok("-u", "sensor-1", "-k", "secretPSK", coaps + "/benchmark").out());
        assertEquals("hello world\n", ok("-u", "raw", "-k", "0x0102AB", coaps + "/benchmark").out());
        CommandRun put = ok("-u", "sensor-1", "-k", "secretPSK", "-m", "put", "-t", "text", "-e", "over dtls",
                coaps + "/large-update");
        assertEquals("", put.out());
        assertEquals("over dtls\n", ok("-u", "raw", "-k", "0x0102ab", coaps + "/large-update").out());
    }

    @Test
    void wrongPskEndsWithTheHandshakeNotTheTimeout() {
        // -B 4: the handshake gives up at 3 s, a second before the command would
        CommandRun r = CommandRun.client("-B", "4", "-u", "sensor-1", "-k", "wrong", coaps + "/benchmark");
        assertEquals(2, r.status(), r.toString());
        assertTrue(r.err().startsWith("stagecoach client: ") && r.err().contains("DTLS handshake"), r.toString());
    }

    @Test
    void certificatesWithShortAndLongFlagsOverDtlsAndTls() {
        for (String uri : List.of(coaps, coapsTcp)) {
            assertEquals("hello world\n", ok("-c", file("client.pem"), "-j", file("client.key"), "-C", file("ca.pem"),
                    uri + "/benchmark").out(), uri);
            assertEquals("hello world\n", ok("--cert", file("client.pem"), "--key", file("client.key"), "--ca",
                    file("ca.pem"), uri + "/benchmark").out(), uri);
        }
    }

    @Test
    void serverWithCaRequiresAClientCertificate() {
        CommandRun r = CommandRun.client("-B", "5", "-C", file("ca.pem"), coaps + "/benchmark");
        assertEquals(2, r.status(), r.toString());
        assertTrue(r.err().contains("DTLS handshake"), r.toString());
    }

    @Test
    void untrustedServerCertificateIsRefused() {
        CommandRun r = CommandRun.client("-B", "5", "-c", file("client.pem"), "-j", file("client.key"),
                "-C", file("client.pem").replace("client.pem", "untrusted-ca.pem"), coaps + "/benchmark");
        assertEquals(2, r.status(), "a missing CA file: " + r);
        assertTrue(r.err().contains("untrusted-ca.pem"), r.toString());
    }

    @Test
    void badSecurityCommandLinesExitTwoWithOneLineReason() {
        List<String[]> lines = List.of(
                new String[] {coaps + "/benchmark"}, // coaps without credentials
                new String[] {"-u", "sensor-1", coaps + "/benchmark"},
                new String[] {"-k", "secretPSK", coaps + "/benchmark"},
                new String[] {"-u", "sensor-1", "-k", "0xZZ", coaps + "/benchmark"},
                new String[] {"-j", file("client.key"), "-C", file("ca.pem"), coaps + "/benchmark"},
                new String[] {"-c", file("client.pem"), "-j", file("client.key"), coaps + "/benchmark"},
                new String[] {"-u", "sensor-1", "-k", "secretPSK", coapsTcp + "/benchmark"});
        for (String[] args : lines) {
            CommandRun r = CommandRun.client(args);
            String seen = String.join(" ", args) + " -> " + r;
            assertEquals(2, r.status(), seen);
            assertEquals("", r.out(), seen);
            assertTrue(r.err().startsWith("stagecoach client: ") && r.err().lines().count() == 1, seen);
        }
        assertTrue(CommandRun.client(coaps + "/benchmark").err().contains("-u IDENTITY -k KEY"));
    }

    @Test
    void badServerSecurityOptionsAreUsageErrors() {
        List<String[]> lines = List.of(
                new String[] {"--dtls-port", "0"},
                new String[] {"--dtls-port", "0", "--psk", "no-colon"},
                new String[] {"--dtls-port", "0", "--psk", ":secret"},
                new String[] {"--dtls-port", "0", "--psk", "id:"},
                new String[] {"--dtls-port", "0", "--psk", "id:a", "--psk", "id:b"},
                new String[] {"--dtls-port", "0", "--cert", file("server.pem")},
                new String[] {"--dtls-port", "0", "--psk", "id:a", "--cid-length", "33"},
                new String[] {"--dtls-warmup", "5"},
                new String[] {"--dtls-port", "0", "--cert", file("server.pem"), "--key", file("server.key"),
                    "--dtls-warmup", "5"});
        for (String[] args : lines) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = ServerCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String seen = String.join(" ", args) + " -> exit " + status + ", stderr: " + err;
            assertEquals(2, status, seen);
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("stagecoach server: "), seen);
        }
        UsageException e = assertThrows(UsageException.class,
                () -> ServerOptions.parse(new String[] {"--dtls-port", "0"}));
        assertTrue(e.getMessage().contains("--psk"), e.getMessage());
    }

    @Test
    void aServerWarmedUpBeforeReadyServesPskClients() throws Exception {
        try (PlugtestServerRunner warmed = PlugtestServerRunner.start(ServerOptions.parse(new String[] {
            "--port", "0", "--bind", "127.0.0.1", "--dtls-port", "0", "--psk", "sensor-1:secretPSK",
            "--dtls-warmup", "5"}))) {
            String target = "coaps://127.0.0.1:" + warmed.port("coaps") + "/benchmark";

            assertEquals("hello world\n", ok("-u", "sensor-1", "-k", "secretPSK", target).out());
        }
    }

    @Test
    void cidLengthFlagSetsTheDtlsSetting() throws Exception {
        assertEquals(0, PlugtestServerRunner.configuration(ServerOptions.parse(new String[] {
            "--dtls-port", "0", "--psk", "id:a", "--cid-length", "0"})).get(DtlsConfig.CID_LENGTH));
        assertEquals(DtlsConfig.CID_LENGTH.defaultValue(), PlugtestServerRunner.configuration(
                ServerOptions.parse(new String[0])).get(DtlsConfig.CID_LENGTH));
    }

    @Test
    void helpListsTheSecurityFlags() {
        String client = ClientOptions.usage();
        for (String flag : List.of("-u IDENTITY", "-k KEY", "-C, --ca", "-c, --cert", "-j, --key", "coaps")) {
            assertTrue(client.contains(flag), flag + " in\n" + client);
        }
        String server = ServerOptions.usage();
        for (String flag : List.of("--dtls-port", "--psk IDENTITY:SECRET", "--cid-length", "--cert", "--key", "--ca",
                "coaps://")) {
            assertTrue(server.contains(flag), flag + " in\n" + server);
        }
    }
}
