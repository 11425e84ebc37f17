package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An interop peer running as a separate OS process. Its stdout and stderr go to temporary files
 * (no reader threads to leak), which {@link #describe()} puts into assertion messages together
 * with the command and exit code. {@link #close()} always ends the process and its descendants
 * and deletes the files, so use it in try-with-resources.
 */
public final class PeerProcess implements AutoCloseable {

    /** How long {@link #close()} lets a peer exit on SIGTERM before it is killed. */
    private static final Duration GRACE = Duration.ofSeconds(2);
    /** How often {@link #awaitOutput} looks at the output files again. */
    private static final Duration POLL = Duration.ofMillis(20);

    private final List<String> command;
    private final Process process;
    private final Path stdoutFile;
    private final Path stderrFile;

    private PeerProcess(List<String> command, Process process, Path stdoutFile, Path stderrFile) {
        this.command = command;
        this.process = process;
        this.stdoutFile = stdoutFile;
        this.stderrFile = stderrFile;
    }

    /** Starts {@code executable} with {@code args}; its stdin is closed at once (peers read none). */
    public static PeerProcess start(Path executable, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(List.of(args));
        return start(command);
    }

    /** Starts {@code command}; its stdin is closed at once (peers read none). */
    public static PeerProcess start(List<String> command) throws IOException {
        List<String> copy = List.copyOf(command);
        Path out = Files.createTempFile("stagecoach-peer-", ".out");
        Path err = Files.createTempFile("stagecoach-peer-", ".err");
        try {
            Process process = new ProcessBuilder(copy)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            process.getOutputStream().close();
            return new PeerProcess(copy, process, out, err);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            throw e;
        }
    }

    /** Whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The operating system's process id. */
    public long pid() {
        return process.pid();
    }

    /** Everything the peer wrote to stdout so far. */
    public String stdout() {
        return read(stdoutFile);
    }

    /** Everything the peer wrote to stderr so far. */
    public String stderr() {
        return read(stderrFile);
    }

    /**
     * Waits up to {@code timeout} for the peer to exit and returns its exit code; fails the test
     * with {@link #describe()} if it is still running then.
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return fail("peer did not exit within " + timeout + ": " + describe());
        }
        return process.exitValue();
    }

    /**
     * Waits until {@code condition} holds for what the peer has written so far, at most
     * {@code timeout}; returns whether it held (the caller asserts, with its own message and
     * {@link #describe()}). The files are read again every 20 ms and once more after the peer
     * exits, when its output is complete: a peer that ends without writing what is waited for
     * ends the wait at once. Wait for the last line an assertion needs, not for an earlier one:
     * a peer writes its log lines one after the other, not at once.
     */
    public boolean awaitOutput(Predicate<PeerProcess> condition, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            // Alive is read before the output: if the peer had exited by then, the output is complete.
            boolean alive = process.isAlive();
            if (condition.test(this)) {
                return true;
            }
            long left = end - System.nanoTime();
            if (!alive || left <= 0) {
                return false;
            }
            process.waitFor(Math.min(left, POLL.toNanos()), TimeUnit.NANOSECONDS); // ends early when the peer exits
        }
    }

    /** Command, state or exit code, stdout and stderr: for assertion messages. */
    public String describe() {
        String state = process.isAlive() ? "running" : "exit code " + process.exitValue();
        return String.join(" ", command) + " [pid " + process.pid() + ", " + state + "]"
                + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr();
    }

    /** Ends the peer and every process it started (SIGTERM, then SIGKILL after 2 s), deletes its output. */
    @Override
    public void close() {
        List<ProcessHandle> descendants = process.descendants().toList();
        descendants.forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                descendants.forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            try {
                Files.deleteIfExists(stdoutFile);
                Files.deleteIfExists(stderrFile);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
