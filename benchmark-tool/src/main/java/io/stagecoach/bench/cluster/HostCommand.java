package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One short host command ({@code ip}, {@code nft}, {@code conntrack}): run to completion within a
 * bound, its output captured. A command that fails or overruns throws with what it printed.
 */
final class HostCommand {

    /** Every host command here finishes in milliseconds; this bound only catches a hang. */
    static final Duration LIMIT = Duration.ofSeconds(10);

    private HostCommand() {
    }

    /** Runs {@code argv}; its stdout. */
    static String run(String... argv) throws IOException {
        return feed(null, argv);
    }

    /**
     * Runs {@code argv} with {@code stdin} (or none) and returns its stdout.
     *
     * @throws IOException when it exits non-zero or does not end within {@link #LIMIT}
     */
    static String feed(String stdin, String... argv) throws IOException {
        Result r = attempt(stdin, argv);
        if (r.status != 0) {
            throw new IOException(String.join(" ", argv) + " exited " + r.status + ": " + (r.output + r.errors).strip());
        }
        return r.output;
    }

    /** Runs {@code argv} and returns its status and output whatever the status. */
    static Result attempt(String stdin, String... argv) throws IOException {
        // output to files, not pipes: a hung command cannot block the reader past the limit; two
        // files, since conntrack writes its summary to stderr in the middle of the flow lines
        Path out = Files.createTempFile("stagecoach-cmd", ".out");
        Path err = Files.createTempFile("stagecoach-cmd", ".err");
        Process p = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            if (!p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException(String.join(" ", argv) + " still running after " + LIMIT.toSeconds() + " s");
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", argv), e);
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** {@code ip netns exec NS argv...}. */
    static String[] inNamespace(String namespace, String... argv) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        all.addAll(List.of(argv));
        return all.toArray(new String[0]);
    }

    /** Exit status, stdout and stderr of a command. */
    record Result(int status, String output, String errors) {
    }
}
