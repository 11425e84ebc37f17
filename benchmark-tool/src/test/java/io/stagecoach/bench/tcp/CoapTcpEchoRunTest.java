package io.stagecoach.bench.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The C tool's echo (the generator's ceiling) on epoll and on io_uring: its CSM first, an answer
 * carrying each request's token (RFC 8323 §3.2, §5.3) for requests written together and for one
 * cut across writes, and the generator against it in every pairing of the two modes. Where the
 * kernel has no usable io_uring, the tool must say so ({@link CoapTcpLoadRunTest#uringUnavailable}).
 * Needs gcc.
 */
class CoapTcpEchoRunTest {

    private static final Pattern LISTENING = Pattern.compile("listening on coap\\+tcp://127\\.0\\.0\\.1:(\\d+) \\((\\w+)\\)");

    /** Content-Format 0 (empty value), payload "hello world": the echo's answer after the token. */
    private static final byte[] BODY = {(byte) 0xC0, (byte) 0xFF, 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "uring"})
    void answersEveryRequestWithItsToken(String io) throws Exception {
        CoapTcpLoad tool = CoapTcpLoad.build();
        Process echo = startEcho(tool, io);
        try {
            int port = port(echo, io);
            if (port < 0) {
                return; // io_uring unavailable, said clearly: asserted in port()
            }
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setTcpNoDelay(true);
                s.setSoTimeout(10_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                byte[] csm = new byte[2];
                in.readFully(csm);
                assertArrayEquals(new byte[] {0x00, (byte) 0xE1}, csm, "its CSM first");
                // three GETs in one write (the third with a 1-byte token), then one in two writes
                ByteArrayOutputStream pipelined = new ByteArrayOutputStream();
                pipelined.writeBytes(get(0x11111111));
                pipelined.writeBytes(get(0x22222222));
                pipelined.writeBytes(new byte[] {0x01, 0x01, 0x33});
                out.write(pipelined.toByteArray());
                out.flush();
                byte[] fourth = get(0x44444444);
                out.write(fourth, 0, 3);
                out.flush();
                out.write(fourth, 3, fourth.length - 3);
                out.flush();
                assertAnswer(in, new byte[] {0x11, 0x11, 0x11, 0x11});
                assertAnswer(in, new byte[] {0x22, 0x22, 0x22, 0x22});
                assertAnswer(in, new byte[] {0x33});
                assertAnswer(in, new byte[] {0x44, 0x44, 0x44, 0x44});
            }
        } finally {
            echo.destroyForcibly();
            echo.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @CsvSource({"epoll,epoll", "uring,epoll", "epoll,uring", "uring,uring"})
    void theGeneratorCompletesAgainstIt(String generatorIo, String echoIo) throws Exception {
        CoapTcpLoad tool = CoapTcpLoad.build();
        Process echo = startEcho(tool, echoIo);
        try {
            int port = port(echo, echoIo);
            if (port < 0) {
                return;
            }
            Process p = new ProcessBuilder(tool.binary().toString(), "load", "--host", "127.0.0.1",
                    "--port", Integer.toString(port), "--path", "benchmark", "--connections", "20",
                    "--warmup", "0.3", "--duration", "0.5", "--timeout", "5", "--io", generatorIo)
                    .redirectErrorStream(true).start();
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the generator ends after its window");
            } finally {
                p.destroyForcibly();
            }
            if (CoapTcpLoadRunTest.uringUnavailable(generatorIo, p.exitValue(), out)) {
                return;
            }
            assertEquals(0, p.exitValue(), out);
            Map<String, Long> r = new HashMap<>();
            for (String line : out.split("\n")) {
                String[] kv = line.trim().split(" ");
                if (kv.length == 2 && kv[1].matches("\\d+")) {
                    r.put(kv[0], Long.parseLong(kv[1]));
                }
            }
            assertTrue(out.contains("io " + generatorIo + "\n"), out);
            assertTrue(r.get("completed") > 100, out);
            assertEquals(0, r.get("timeouts"), out);
            assertEquals(0, r.get("errors"), out);
            assertEquals(0, r.get("stray"), "every answer matched its request: " + out);
            assertEquals(0, r.get("closed"), out);
        } finally {
            echo.destroyForcibly();
            echo.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Process startEcho(CoapTcpLoad tool, String io) throws Exception {
        return new ProcessBuilder(tool.binary().toString(), "echo", "--host", "127.0.0.1", "--port", "0", "--io", io)
                .redirectErrorStream(true).start();
    }

    /**
     * The port from the echo's first line; -1 when io_uring was asked for and the tool, having
     * none, said so and exited with its own status.
     */
    private static int port(Process echo, String io) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(echo.getInputStream(), StandardCharsets.US_ASCII));
        String line = r.readLine();
        Matcher m = LISTENING.matcher(line == null ? "" : line);
        if (!m.find()) {
            assertTrue(echo.waitFor(10, TimeUnit.SECONDS), "it ended: " + line);
            assertTrue(CoapTcpLoadRunTest.uringUnavailable(io, echo.exitValue(), line),
                    "either listening or io_uring unavailable: " + line);
            return -1;
        }
        assertEquals(io.equals("uring") ? "io_uring" : "epoll", m.group(2), line);
        return Integer.parseInt(m.group(1));
    }

    /** GET /benchmark, token t (4 bytes): Len 10 (one Uri-Path option), TKL 4. */
    private static byte[] get(int t) {
        byte[] path = "benchmark".getBytes(StandardCharsets.US_ASCII);
        byte[] f = new byte[2 + 4 + 1 + path.length];
        f[0] = (byte) ((1 + path.length) << 4 | 4);
        f[1] = 0x01;
        f[2] = (byte) (t >>> 24);
        f[3] = (byte) (t >>> 16);
        f[4] = (byte) (t >>> 8);
        f[5] = (byte) t;
        f[6] = (byte) (11 << 4 | path.length);
        System.arraycopy(path, 0, f, 7, path.length);
        return f;
    }

    /** Len 13 with extension 0 (13 bytes of options and payload), TKL, 2.05, the token, then {@link #BODY}. */
    private static void assertAnswer(DataInputStream in, byte[] token) throws Exception {
        byte[] head = new byte[3];
        in.readFully(head);
        assertEquals((byte) (13 << 4 | token.length), head[0], "Len 13, TKL " + token.length);
        assertEquals(0, head[1], "extended length 13 + 0");
        assertEquals(0x45, head[2], "2.05 Content");
        byte[] got = new byte[token.length];
        in.readFully(got);
        assertArrayEquals(token, got, "the request's token");
        byte[] body = new byte[BODY.length];
        in.readFully(body);
        assertArrayEquals(BODY, body, "Content-Format 0, payload hello world");
    }
}
