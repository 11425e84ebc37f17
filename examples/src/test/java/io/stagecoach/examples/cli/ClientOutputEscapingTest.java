package io.stagecoach.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./stagecoach client} against a server that sends terminal escape sequences in every place
 * the client prints: text, binary and link-format payloads, a diagnostic payload, option values
 * and (with {@code -v}) the traced messages. Nothing that reaches stdout or stderr may carry ESC
 * (0x1B), CSI (U+009B), BEL or a lone CR; {@code -o FILE} gets the bytes unchanged.
 */
class ClientOutputEscapingTest {

    private static final String ESC = "\u001b";
    /** Clears the screen, sets the window title, rings the bell, rewrites the line, CSI. */
    private static final String HOSTILE = "hi" + ESC + "[2J" + ESC + "]0;pwned\u0007\rX\u009b31m\u202e";
    private static final byte[] BINARY = {0x1b, '[', '2', 'J', 0, 'A', (byte) 0x9b, '\n'};

    private static CoapServer server;
    private static String base;

    @BeforeAll
    static void startHostileServer() {
        server = CoapServer.builder().udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
        server.add(
                CoapResource.named("text").onGet(ex -> ex.respond(Code.CONTENT, HOSTILE + "\nline 2\r\n")),
                CoapResource.named("bin").onGet(ex -> ex.respond(Code.CONTENT, BINARY, ContentFormat.OCTET_STREAM)),
                CoapResource.named("links").onGet(ex -> ex.respond(Code.CONTENT,
                        ("</a" + ESC + "[2J>;title=\"t" + ESC + "]0;pwned\u0007\"").getBytes(StandardCharsets.UTF_8),
                        ContentFormat.LINK_FORMAT)),
                CoapResource.named("badlinks").onGet(ex -> ex.respond(Code.CONTENT,
                        ("<" + ESC + "[2J").getBytes(StandardCharsets.UTF_8), ContentFormat.LINK_FORMAT)),
                CoapResource.named("err").onGet(ex -> ex.respond(Response.forRequest(ex.request(), Code.BAD_REQUEST)
                        .payload("bad\nstagecoach client: all good" + ESC + "[0m"))),
                CoapResource.named("loc").onPost(ex -> ex.respond(Code.CREATED,
                        r -> r.options().locationPath(List.of("x" + ESC + "[2J", "y\rz")))));
        server.start();
        base = "coap://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stop() {
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static void assertTerminalSafe(String printed, CommandRun r) {
        assertFalse(printed.contains(ESC), "no ESC: " + r);
        assertFalse(printed.contains("\u009b"), "no CSI: " + r);
        assertFalse(printed.contains("\u0007"), "no BEL: " + r);
        assertFalse(printed.contains("\u202e"), "no bidi override: " + r);
        assertFalse(printed.replace("\r\n", "\n").contains("\r"), "no lone CR: " + r);
    }

    /** Text keeps its line breaks; the escape sequences show as \x1b etc. */
    @Test
    void textPayloadIsEscaped() {
        CommandRun r = CommandRun.client(base + "/text");
        assertEquals(0, r.status(), r.toString());
        assertTerminalSafe(r.out(), r);
        assertEquals("hi\\x1b[2J\\x1b]0;pwned\\x07\\x0dX\\x9b31m\\u202e\nline 2\r\n", r.out());
    }

    /** A binary payload on stdout is shown as escaped ASCII, one line. */
    @Test
    void binaryPayloadIsEscapedOnStdout() {
        CommandRun r = CommandRun.client(base + "/bin");
        assertEquals("\\x1b[2J\\x00A\\x9b\\x0a\n", r.out(), r.toString());
    }

    /** -o FILE: the payload's bytes, unchanged. */
    @Test
    void outputFileGetsTheRawBytes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("payload.bin");
        CommandRun r = CommandRun.client("-o", file.toString(), base + "/bin");
        assertEquals(0, r.status(), r.toString());
        assertEquals("", r.out());
        assertArrayEquals(BINARY, Files.readAllBytes(file));
    }

    /** Link-format: each target and attribute on one escaped line; unparsable text escaped too. */
    @Test
    void linkFormatIsEscaped() {
        CommandRun r = CommandRun.client(base + "/links");
        assertTerminalSafe(r.out(), r);
        assertTrue(r.out().contains("\\x1b[2J"), r.toString());
        CommandRun bad = CommandRun.client(base + "/badlinks");
        assertTerminalSafe(bad.out(), bad);
        assertTrue(bad.out().contains("<\\x1b[2J"), bad.toString());
    }

    /** A diagnostic payload stays on one line, so it cannot fake a line of the client's own. */
    @Test
    void diagnosticPayloadIsOneEscapedLine() {
        CommandRun r = CommandRun.client(base + "/err");
        assertEquals(1, r.status(), r.toString());
        assertEquals("bad\\x0astagecoach client: all good\\x1b[0m\n", r.out(), r.toString());
        assertEquals("4.00 Bad Request\n", r.err(), r.toString());
    }

    /** -v: option values on stdout and the traced messages on stderr are escaped too. */
    @Test
    void verboseOptionsAndTraceAreEscaped() {
        CommandRun r = CommandRun.client("-v", "-m", "post", base + "/loc");
        assertEquals(0, r.status(), r.toString());
        assertTerminalSafe(r.out(), r);
        assertTerminalSafe(r.err(), r);
        assertTrue(r.out().contains("Location-Path=\"x\\x1b[2J\""), r.toString());
        assertTrue(r.out().contains("Location-Path=\"y\\x0dz\""), r.toString());
        assertTrue(r.err().contains("\\x1b[2J"), "the trace shows the option, escaped: " + r);
    }

    /** The printer itself, for each kind of payload (no network). */
    @Test
    void printerEscapesEveryKindOfPayload() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ResponsePrinter printer = new ResponsePrinter(out, true, null);
        Response.Builder b = Response.builder(Code.CONTENT).payload(HOSTILE);
        b.options().contentFormat(50).locationQuery(List.of("q" + ESC + "c"));
        printer.print(b.build());
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(printed.contains(ESC) || printed.contains("\u009b") || printed.contains("\r"), printed);
        assertTrue(printed.startsWith("2.05 Content\n"), printed);
        assertTrue(printed.contains("q\\x1bc"), printed);
    }
}
