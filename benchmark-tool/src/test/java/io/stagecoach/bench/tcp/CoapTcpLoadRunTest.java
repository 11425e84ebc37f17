package io.stagecoach.bench.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The C generator against a peer that cuts its frames across reads: every answer is followed by
 * the first two bytes of a Ping (RFC 8323 §5.4) whose rest comes only with the next answer, so
 * the generator must keep an incomplete frame between reads, then answer the Ping with a Pong.
 * On epoll and on io_uring (where the kernel has no usable io_uring, the tool must say so and exit
 * with its own status: {@link #uringUnavailable}). Needs gcc (the benchmark tool's own requirement
 * for {@code --generator c}).
 */
class CoapTcpLoadRunTest {

    private static final byte[] PING = {0x02, (byte) 0xE2, 0x7A, 0x7B}; // Len 0, TKL 2, 7.02, token 7A7B
    private static final byte[] PONG = {0x02, (byte) 0xE3, 0x7A, 0x7B};

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "uring"})
    void keepsFramesCutAcrossReadsAndAnswersPings(String io) throws Exception {
        CoapTcpLoad tool = CoapTcpLoad.build();
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger pongs = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try (Socket s = server.accept()) {
                    serve(s, answered, pongs);
                } catch (IOException e) {
                    if (answered.get() == 0) { // else the generator's close at the end of its run
                        failure.set(e);
                    }
                } catch (RuntimeException | AssertionError e) {
                    failure.set(e);
                }
            }, "split-peer");
            acceptor.start();
            Process p = new ProcessBuilder(tool.binary().toString(), "load", "--host", "127.0.0.1",
                    "--port", Integer.toString(server.getLocalPort()), "--path", "benchmark",
                    "--connections", "1", "--warmup", "0.2", "--duration", "0.5", "--timeout", "5", "--io", io)
                    .redirectErrorStream(true).start();
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the generator ends after its window");
            } finally {
                p.destroyForcibly();
            }
            if (uringUnavailable(io, p.exitValue(), out)) {
                return; // said so clearly: asserted there
            }
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("io " + io + "\n"), "the mode it ran in: " + out);
            acceptor.join(10_000);
            assertEquals(null, failure.get());
            Map<String, Long> r = results(out);
            assertTrue(r.get("completed") > 10, out);
            assertEquals(0, r.get("errors"), out);
            assertEquals(0, r.get("stray"), "every answer matched its request: " + out);
            assertEquals(0, r.get("closed"), out);
            // The Ping begun with the last answer is never completed, and the one completed by the
            // last answer may arrive after the generator stopped reading: the two the peer sent last.
            assertTrue(pongs.get() >= answered.get() - 2 && pongs.get() > 10,
                    "a Pong for every completed Ping: " + pongs + " of " + answered);
        }
    }

    /**
     * Whether {@code io_uring} was asked for and the tool reported that this kernel cannot give
     * it: then it must have exited with its own status and said why, in one line that names
     * io_uring. Any other failure is not this.
     */
    static boolean uringUnavailable(String io, int exit, String out) {
        if (!io.equals("uring") || exit != CoapTcpLoad.EXIT_NO_URING) {
            return false;
        }
        assertTrue(out.contains("io_uring unavailable: "), "a reason naming io_uring: " + out);
        return true;
    }

    /** CSM first, then per request: its answer, the rest of the pending Ping, the head of the next. */
    private static void serve(Socket s, AtomicInteger answered, AtomicInteger pongs) throws IOException {
        s.setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        out.write(new byte[] {0x00, (byte) 0xE1});
        boolean pingPending = false;
        while (true) {
            byte[] frame = readFrame(in);
            int tkl = frame[0] & 0x0F;
            int code = frame[1] & 0xFF;
            if (code == 0xE3) {
                assertArrayEquals(PONG, frame);
                pongs.incrementAndGet();
                continue;
            }
            if (code != 0x01) {
                continue; // its CSM
            }
            byte[] answer = new byte[3 + tkl];
            answer[0] = (byte) tkl; // Len 0: 2.05, no options, no payload
            answer[1] = 0x45;
            System.arraycopy(frame, 2, answer, 2, tkl);
            byte[] burst = new byte[(pingPending ? 2 : 0) + 2 + tkl + 2];
            int at = 0;
            if (pingPending) {
                System.arraycopy(PING, 2, burst, 0, 2);
                at = 2;
            }
            System.arraycopy(answer, 0, burst, at, 2 + tkl);
            at += 2 + tkl;
            System.arraycopy(PING, 0, burst, at, 2);
            out.write(burst);
            out.flush();
            pingPending = true;
            answered.incrementAndGet();
        }
    }

    /** One frame of the short form (Len 0–12, RFC 8323 §3.2): all the generator sends. */
    private static byte[] readFrame(DataInputStream in) throws IOException {
        int first = in.readUnsignedByte();
        int len = first >>> 4;
        int tkl = first & 0x0F;
        assertTrue(len < 13, "short frames only");
        byte[] frame = new byte[2 + tkl + len];
        frame[0] = (byte) first;
        in.readFully(frame, 1, frame.length - 1);
        return frame;
    }

    private static Map<String, Long> results(String out) {
        Map<String, Long> r = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.trim().split(" ");
            if (kv.length == 2 && !kv[0].equals("H") && kv[1].matches("\\d+")) {
                r.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        assertTrue(r.keySet().containsAll(Arrays.asList("completed", "errors", "stray", "closed")), out);
        return r;
    }
}
