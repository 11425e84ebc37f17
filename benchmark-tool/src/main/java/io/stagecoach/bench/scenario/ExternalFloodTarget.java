package io.stagecoach.bench.scenario;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A server under attack started from a shell command ({@code --server-cmd}), with {@code {port}}
 * replaced by a free UDP port of 127.0.0.1: another build of Stagecoach (the launcher of an older
 * commit) or another implementation. The command must bind 127.0.0.1 on that port and choose the
 * heap, block size and notification period itself; nothing is known of its internals, so it
 * reports no counters. It is up once it answers a CoAP ping. Its standard output and error go to
 * a log file, deleted by {@link #close()}, which ends the process and all its descendants (a
 * launcher script's JVM included).
 */
final class ExternalFloodTarget extends ProcessFloodServer {

    private static final long READY_MILLIS = 60_000;

    private final InetSocketAddress address;
    private final String command;

    private ExternalFloodTarget(Process process, Path log, InetSocketAddress address, String command) {
        super(process, log);
        this.address = address;
        this.command = command;
    }

    /**
     * Runs {@code command} through {@code /bin/sh} and waits until the server answers a ping.
     *
     * @throws IOException when it cannot start, ends, or does not answer within 60 s
     */
    static ExternalFloodTarget start(String command) throws IOException {
        int port = freeUdpPort();
        String argv = command.replace("{port}", Integer.toString(port));
        Path log = Files.createTempFile("stagecoach-flood-external", ".log");
        Process p = new ProcessBuilder("/bin/sh", "-c", "exec " + argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        ExternalFloodTarget t = new ExternalFloodTarget(p, log,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), argv);
        try {
            if (!CoapPing.answered(t.address, READY_MILLIS, p::isAlive)) {
                String why = p.isAlive() ? "did not answer a CoAP ping on " + port + " within " + READY_MILLIS / 1000
                        + " s" : "ended (exit code " + p.waitFor() + ") before answering a CoAP ping on " + port;
                throw new IOException("the server command " + why + "; its output ends with: "
                        + String.join(" | ", t.logTail(10)));
            }
            return t;
        } catch (InterruptedException e) {
            t.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the server command", e);
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /** A port no socket of 127.0.0.1 holds now; the command binds it a moment later. */
    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return s.getLocalPort();
        }
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public String description() {
        return address.getAddress().getHostAddress() + ":" + address.getPort() + " (external server: " + command + ")";
    }

    @Override
    public boolean hasStats() {
        return false;
    }

    @Override
    public Map<String, Long> stats() {
        return Map.of();
    }

    @Override
    public Map<String, Long> statsAfterGc() {
        return Map.of();
    }

    @Override
    public void resetPeak() {
        // no heap to read
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // a temp file left behind is harmless
            }
        }
    }
}
