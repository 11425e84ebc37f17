package io.stagecoach.bench.dist;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Third-party mode (Lanter §6.1: "CoAPBench is extensible with third-party software"): runs an
 * external command with {@code /bin/sh -c}, stdout and stderr merged, and returns its output
 * (at most 1 MiB kept) and exit code; a command still running at the timeout is killed and
 * reported with exit code -1.
 */
public final class ThirdParty {

    private static final int MAX_OUTPUT = 1 << 20;

    private ThirdParty() {
    }

    public record Outcome(int exitCode, String output) { }

    public static Outcome run(String command, long timeoutMs) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of("/bin/sh", "-c", command)).redirectErrorStream(true).start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // Read on this thread; the process is killed at the deadline, which ends the stream.
        Thread killer = new Thread(() -> {
            try {
                if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "stagecoach-bench-exec-timer");
        killer.setDaemon(true);
        killer.start();
        try (InputStream in = p.getInputStream()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (out.size() < MAX_OUTPUT) {
                    out.write(buf, 0, Math.min(n, MAX_OUTPUT - out.size()));
                }
            }
        } finally {
            killer.interrupt();
            killer.join();
        }
        boolean finished = p.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
        int code = finished ? p.exitValue() : -1;
        if (!finished) {
            p.destroyForcibly().waitFor();
        }
        return new Outcome(code, out.toString(StandardCharsets.UTF_8));
    }
}
