package io.stagecoach.bench.compare;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server under test in its own process, started from a shell command, optionally pinned to
 * CPUs with {@code taskset}. {@link #awaitReady} probes it with CoAP GETs until something
 * answers; {@link #close} ends the process and all its descendants.
 */
public final class ServerProcess implements AutoCloseable {

    private final String name;
    private final Process process;

    private ServerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
    }

    /**
     * @param command shell command; {@code {port}} is replaced by {@code port}
     * @param cpus    CPU list for {@code taskset -c}, or {@code null}
     * @param log     file receiving the server's stdout and stderr
     */
    public static ServerProcess start(String name, String command, int port, String cpus, Path log) throws IOException {
        List<String> argv = new ArrayList<>();
        if (cpus != null) {
            argv.addAll(List.of("taskset", "-c", cpus));
        }
        argv.addAll(List.of("/bin/sh", "-c", "exec " + command.replace("{port}", Integer.toString(port))));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new ServerProcess(name, p);
    }

    public String name() {
        return name;
    }

    /** The server's process id (the launcher scripts exec their JVM, so it is the server itself). */
    public long pid() {
        return process.pid();
    }

    /**
     * Sends a CON GET for {@code path} (one segment or empty) to 127.0.0.1:{@code port} every
     * 250 ms until any CoAP message comes back; false when the process died or {@code timeoutMs}
     * passed.
     */
    public boolean awaitReady(int port, String path, long timeoutMs) throws IOException {
        byte[] request = probe(path);
        long deadline = System.currentTimeMillis() + timeoutMs;
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(250);
            DatagramPacket out = new DatagramPacket(request, request.length, InetAddress.getLoopbackAddress(), port);
            DatagramPacket in = new DatagramPacket(new byte[1500], 1500);
            while (System.currentTimeMillis() < deadline) {
                if (!process.isAlive()) {
                    return false;
                }
                s.send(out);
                try {
                    s.receive(in);
                    if (in.getLength() >= 4 && (in.getData()[0] & 0xC0) == 0x40) {
                        return true;
                    }
                } catch (SocketTimeoutException e) {
                    // not up yet
                }
            }
        }
        return false;
    }

    /**
     * As {@link #awaitReady(int, String, long)} over {@code coap+tcp}: connects every 250 ms, sends
     * a CSM and a GET (RFC 8323 §3.2, §5.3) and waits for any frame that is not a signal.
     */
    public boolean awaitReadyTcp(int port, String path, long timeoutMs) throws IOException {
        byte[] get = probe(path);
        // the UDP probe minus type/MID: Len = options, TKL 0, then the code and the options
        byte[] frame = new byte[2 + get.length - 4];
        frame[0] = (byte) ((get.length - 4) << 4);
        frame[1] = 0x01;
        System.arraycopy(get, 4, frame, 2, get.length - 4);
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 250);
                s.setSoTimeout(250);
                OutputStream out = s.getOutputStream();
                out.write(new byte[] {0x00, (byte) 0xE1}); // CSM without options
                out.write(frame);
                InputStream in = s.getInputStream();
                while (true) {
                    int first = in.read();
                    int code = first < 0 ? -1 : skipToCode(in, first);
                    if (code < 0) {
                        break;
                    }
                    if (code >> 5 != 7) {
                        return true;
                    }
                }
            } catch (IOException e) {
                // not up yet
            }
            try {
                Thread.sleep(250); // a probe's pace, not a protocol timer
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Reads a frame after its first byte; returns its code, or -1 at the end of the stream. */
    private static int skipToCode(InputStream in, int first) throws IOException {
        int len = first >> 4;
        int ext = len == 13 ? 1 : len == 14 ? 2 : len == 15 ? 4 : 0;
        long body = len;
        if (ext > 0) {
            long v = 0;
            for (int i = 0; i < ext; i++) {
                int b = in.read();
                if (b < 0) {
                    return -1;
                }
                v = v << 8 | b;
            }
            body = v + (len == 13 ? 13 : len == 14 ? 269 : 65_805);
        }
        int code = in.read();
        long rest = (first & 0x0F) + body;
        if (code < 0) {
            return -1;
        }
        in.skipNBytes(rest); // EOFException when the stream ends inside the frame
        return code;
    }

    /** CON GET, MID 1, no token, Uri-Path segments of {@code path} (each shorter than 13 bytes). */
    static byte[] probe(String path) {
        List<Byte> b = new ArrayList<>(List.of((byte) 0x40, (byte) 0x01, (byte) 0, (byte) 1));
        for (String seg : path.split("/")) {
            if (seg.isEmpty()) {
                continue;
            }
            byte[] v = seg.getBytes(StandardCharsets.UTF_8);
            if (v.length > 12) {
                throw new IllegalArgumentException("probe path segment too long: " + seg);
            }
            // Uri-Path (11): delta 11 for the first, 0 for the following ones.
            b.add((byte) (((b.size() == 4 ? 11 : 0) << 4) | v.length));
            for (byte x : v) {
                b.add(x);
            }
        }
        byte[] out = new byte[b.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.get(i);
        }
        return out;
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
