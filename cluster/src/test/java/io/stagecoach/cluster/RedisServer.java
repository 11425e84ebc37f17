package io.stagecoach.cluster;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} (Debian's package; .ci/install-interop-peers installs it) in a
 * process of its own on a free loopback port, without persistence, for one test class;
 * {@link #close()} ends it and its output reader (a thread named {@code redis-server-output}, outside
 * the per-test check of {@code stagecoach-} threads since it lives as long as the class's server). Missing on a developer machine the test is
 * skipped with the install step; missing under {@code CI=true} it fails.
 */
final class RedisServer implements AutoCloseable {

    private static final String BINARY = "redis-server";

    private final Process process;
    private final BufferedReader log;
    private final Thread drain;
    private final int port;
    private final List<String> output = new ArrayList<>();

    private RedisServer(Process process, int port) {
        this.process = process;
        this.log = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.port = port;
        this.drain = new Thread(this::drainOutput, "redis-server-output");
        this.drain.setDaemon(true);
    }

    /** Starts redis-server and returns once it accepts connections. */
    static RedisServer start() throws IOException, InterruptedException {
        String binary = locate();
        IOException last = null;
        // A free port found here may be taken before redis-server binds it; only that failure
        // ("Address already in use") is met with another port, three times at most.
        for (int attempt = 0; attempt < 3; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            Process p = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice")
                    .redirectErrorStream(true).start();
            RedisServer server = new RedisServer(p, port);
            try {
                server.awaitReady();
                return server;
            } catch (IOException e) {
                server.close();
                if (!String.join("\n", server.output).contains("Address already in use")) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    /** {@code redis://127.0.0.1:PORT}. */
    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Reads the log until redis-server says it is ready, then leaves the rest to a reader thread. */
    private void awaitReady() throws IOException {
        String line;
        while ((line = log.readLine()) != null) {
            synchronized (output) {
                output.add(line);
            }
            if (line.contains("Ready to accept connections")) {
                drain.start();
                return;
            }
        }
        throw new IOException("redis-server ended before it was ready:\n" + String.join("\n", output));
    }

    private void drainOutput() {
        try {
            while (log.readLine() != null) {
                // redis-server's log is read only so that a full pipe never blocks it
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            if (drain.isAlive()) {
                drain.join(TimeUnit.SECONDS.toMillis(10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String locate() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(dir, BINARY);
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        String message = BINARY + " not found on the PATH; install it: apt-get install redis-server (Debian),"
                + " or run .ci/install-interop-peers as root";
        if ("true".equalsIgnoreCase(System.getenv().getOrDefault("CI", "").trim())) {
            fail(message + " (CI=true: this test must run, not skip)");
        }
        Assumptions.abort(message);
        throw new UncheckedIOException(new IOException("unreachable"));
    }
}
