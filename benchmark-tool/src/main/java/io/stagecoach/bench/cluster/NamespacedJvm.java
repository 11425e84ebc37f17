package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java program of this class path in its own process inside a network namespace
 * ({@code ip netns exec NS java ... MAIN ARGS}; {@code ip} execs the JVM, so the process is the
 * JVM and signals reach it). Its stdout and stderr go to files; {@link #close()} ends it (SIGKILL
 * after 2 s of SIGTERM) and is idempotent.
 */
final class NamespacedJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path out;
    private final Path err;

    private NamespacedJvm(String name, Process process, Path out, Path err) {
        this.name = name;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * @param jvmOptions e.g. {@code -Xmx128m}; the logback configuration of the program's module
     *     is chosen by {@code logback}
     */
    static NamespacedJvm start(String name, String namespace, Path dir, List<String> jvmOptions, String logback,
            String mainClass, List<String> args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", namespace,
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        argv.addAll(jvmOptions);
        argv.add("-Dlogback.configurationFile=" + logback);
        argv.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        argv.addAll(args);
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        return new NamespacedJvm(name, p, out, err);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String stdout() throws IOException {
        return Files.readString(out);
    }

    String stderr() throws IOException {
        return Files.readString(err);
    }

    /**
     * Waits until stdout holds {@code lines} lines containing {@code marker}, at most
     * {@code timeout}; the lines so far.
     *
     * @throws IOException when the process ends first or the time is up (with its output)
     */
    List<String> awaitLines(String marker, int lines, Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> found = stdout().lines().filter(l -> l.contains(marker)).toList();
            if (found.size() >= lines) {
                return found;
            }
            if (!process.isAlive() || System.nanoTime() - end >= 0) {
                throw new IOException(name + (process.isAlive() ? " printed no '" + marker + "' within " + timeout
                        : " ended (status " + process.exitValue() + ")") + "; " + describe());
            }
            try {
                process.waitFor(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /** Waits for the process to end, at most {@code timeout}; its exit status, or -1. */
    int awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** SIGKILL: the node dies without a word, as a crashed host or an OOM-killed pod does. */
    void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(5));
    }

    /** SIGTERM: the node is asked to leave (with {@code --drain}: it drains first). */
    void terminate() {
        process.destroy();
    }

    String describe() throws IOException {
        return name + " (pid " + process.pid() + ")\n--- stdout ---\n" + tail(stdout()) + "--- stderr ---\n"
                + tail(stderr());
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : "...\n" + text.substring(text.length() - 4000);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            if (awaitExit(Duration.ofSeconds(2)) < 0) {
                kill();
            }
        }
    }
}
