package io.stagecoach.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server under attack in its own JVM ({@link FloodServerMain}), started with this JVM's java
 * binary and class path, a heap of {@code -Xmx} (the 64 MB) and
 * {@code -XX:+ExitOnOutOfMemoryError}, so that running out of heap shows as a dead process rather
 * than a server limping on. Its standard error goes to a log file; its standard input and output
 * carry the commands and the {@code flood-stats} lines. {@link #close()} asks it to quit, then
 * ends it by force if it does not, and deletes the log.
 */
final class FloodTarget extends ProcessFloodServer {

    private static final long READY_MILLIS = 30_000;

    private final BufferedReader out;
    private final Writer in;
    private final InetSocketAddress address;
    private final String setup;

    private FloodTarget(Process process, BufferedReader out, Writer in, Path log, InetSocketAddress address,
            String setup) {
        super(process, log);
        this.out = out;
        this.in = in;
        this.address = address;
        this.setup = setup;
    }

    /**
     * Starts the server on a free port of 127.0.0.1 and waits for its ready line.
     *
     * @param heap {@code -Xmx} value, e.g. {@code 64m}
     * @throws IOException when it cannot start or does not come up within 30 s
     */
    static FloodTarget start(String heap, int blockSize, long notifyMillis) throws IOException {
        Path log = Files.createTempFile("stagecoach-flood-server", ".log");
        List<String> argv = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError", "-Dlogback.configurationFile=logback-bench.xml",
                "-cp", System.getProperty("java.class.path"), FloodServerMain.class.getName(), "0",
                Integer.toString(blockSize), Long.toString(notifyMillis)));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.to(log.toFile())).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        String setup = "plugtest server in its own JVM: -Xmx" + heap + ", default configuration, block size "
                + blockSize + ", observable resources every " + notifyMillis + " ms";
        FloodTarget t = new FloodTarget(p, out, in, log, null, setup);
        try {
            String ready = t.awaitLine(FloodServerMain.READY, READY_MILLIS);
            String hostPort = ready.substring(FloodServerMain.READY.length()).trim();
            int colon = hostPort.lastIndexOf(':');
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(hostPort.substring(0, colon)),
                    Integer.parseInt(hostPort.substring(colon + 1)));
            return new FloodTarget(p, out, in, log, address, setup);
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public String description() {
        return address.getAddress().getHostAddress() + ":" + address.getPort() + " (" + setup + ")";
    }

    @Override
    public boolean hasStats() {
        return true;
    }

    /** The server's counters, gauges and heap ({@link FloodServerMain#stats}). */
    @Override
    public Map<String, Long> stats() throws IOException {
        return command("stats");
    }

    /** As {@link #stats()} after a full collection: heap used is what is still reachable. */
    @Override
    public Map<String, Long> statsAfterGc() throws IOException {
        return command("gc");
    }

    @Override
    public void resetPeak() throws IOException {
        send("reset-peak");
        awaitLine(FloodServerMain.OK, 10_000);
    }

    private Map<String, Long> command(String command) throws IOException {
        send(command);
        String line = awaitLine(FloodServerMain.STATS, 30_000);
        Map<String, Long> m = new LinkedHashMap<>();
        for (String kv : line.substring(FloodServerMain.STATS.length()).trim().split(" ")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        return m;
    }

    private void send(String command) throws IOException {
        if (!process.isAlive()) {
            throw new IOException("the server process has ended with exit code " + process.exitValue());
        }
        in.write(command + "\n");
        in.flush();
    }

    /**
     * Reads the server's output until a line starting with {@code prefix}; other lines are
     * skipped. The read blocks, so the time limit is checked between lines and enforced by
     * ending the process, which ends the read.
     */
    private String awaitLine(String prefix, long millis) throws IOException {
        Thread watchdog = new Thread(() -> {
            try {
                if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-flood-server-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            throw new IOException("the server process ended (exit code " + waitExit() + ") before answering '"
                    + prefix.trim() + "'; its log ends with: " + String.join(" | ", logTail(10)));
        } finally {
            watchdog.interrupt();
            try {
                watchdog.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private int waitExit() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                try {
                    in.write("quit\n");
                    in.flush();
                } catch (IOException e) {
                    // the pipe is gone: the process is ending anyway
                }
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            try {
                in.close();
            } catch (IOException e) {
                // already closed by the process' end
            }
            try {
                out.close();
            } catch (IOException e) {
                // same
            }
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // a temp file left behind is harmless
            }
        }
    }
}
