package io.stagecoach.bench.tcp;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The C tool {@code coap-tcp-load} (source {@code coap-tcp-load.c} beside this class): a
 * neutral CoAP-over-TCP load generator (epoll, one thread, non-blocking connections, CSM first)
 * and the trivial server that answers every frame, which measures the generator's ceiling; both
 * also on io_uring ({@code --io uring}, Linux 6.0+: batched sends, multishot receives). Built
 * with {@code gcc -O2} on first use into {@code java.io.tmpdir/stagecoach-bench/}, named by a
 * hash of its source so that a changed source is built again. Benchmark-only.
 */
public final class CoapTcpLoad {

    private static final String SOURCE = "coap-tcp-load.c";

    /** The tool's exit status when the kernel (or the headers it was built with) lacks io_uring. */
    static final int EXIT_NO_URING = 3;

    private final Path binary;

    private CoapTcpLoad(Path binary) {
        this.binary = binary;
    }

    /** The tool, compiled now if this source has not been compiled on this machine yet. */
    public static synchronized CoapTcpLoad build() throws IOException, InterruptedException {
        byte[] source;
        try (InputStream in = CoapTcpLoad.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IOException(SOURCE + " is missing from the class path");
            }
            source = in.readAllBytes();
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "stagecoach-bench");
        Files.createDirectories(dir);
        Path binary = dir.resolve("coap-tcp-load-" + hash(source));
        if (Files.isExecutable(binary)) {
            return new CoapTcpLoad(binary);
        }
        Path src = Files.createTempFile(dir, "coap-tcp-load", ".c");
        Path tmp = Files.createTempFile(dir, "coap-tcp-load", ".bin");
        try {
            Files.write(src, source);
            Process gcc = new ProcessBuilder("gcc", "-O2", "-o", tmp.toString(), src.toString())
                    .redirectErrorStream(true).start();
            String text = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (gcc.waitFor() != 0) {
                throw new IOException("gcc failed to build " + SOURCE + ": " + text.trim());
            }
            Files.move(tmp, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().contains("Cannot run program")) {
                throw new IOException("the C generator needs gcc on the PATH: " + e.getMessage(), e);
            }
            throw e;
        } finally {
            Files.deleteIfExists(src);
            Files.deleteIfExists(tmp);
        }
        return new CoapTcpLoad(binary);
    }

    public Path binary() {
        return binary;
    }

    /** The shell command of the answering server, with a {@code {port}} placeholder. */
    public String echoCommand(String bindAddress) {
        return echoCommand(bindAddress, false);
    }

    /** As {@link #echoCommand(String)}, on io_uring when {@code uring}. */
    public String echoCommand(String bindAddress, boolean uring) {
        return "'" + binary + "' echo --host " + bindAddress + " --port {port}" + (uring ? " --io uring" : "");
    }

    /** The tool's {@code --io} value: {@code epoll} or {@code uring}, else IllegalArgumentException. */
    public static String io(String value) {
        if (!value.equals("epoll") && !value.equals("uring")) {
            throw new IllegalArgumentException("--io must be epoll or uring, got '" + value + "'");
        }
        return value;
    }

    /**
     * Runs one step in the tool (warm-up, measured window; the cool-down is a pause after it)
     * with {@code concurrency} connections to {@code destination}.
     *
     * @throws IllegalArgumentException for requests the tool does not send (only GET without
     *         payload or query, at most one path segment of up to 12 bytes)
     */
    public StepResult run(LoadSpec spec, InetSocketAddress destination, int concurrency)
            throws IOException, InterruptedException {
        return run(spec, destination, concurrency, false);
    }

    /**
     * As {@link #run(LoadSpec, InetSocketAddress, int)}, on io_uring when {@code uring}.
     *
     * @throws IOException also when {@code uring} and this kernel has no usable io_uring (the
     *         tool says why on stderr)
     */
    public StepResult run(LoadSpec spec, InetSocketAddress destination, int concurrency, boolean uring)
            throws IOException, InterruptedException {
        List<String> path = spec.uri().path();
        if (!spec.method().equals("GET") || spec.payloadSize() > 0 || !spec.uri().query().isEmpty()
                || path.size() > 1 || path.size() == 1 && path.get(0).getBytes(StandardCharsets.UTF_8).length > 12) {
            throw new IllegalArgumentException("the C generator sends GET with at most one path segment of up to"
                    + " 12 bytes, no query, no payload");
        }
        List<String> argv = new ArrayList<>(List.of(binary.toString(), "load",
                "--host", destination.getAddress().getHostAddress(), "--port", Integer.toString(destination.getPort()),
                "--path", path.isEmpty() ? "" : path.get(0), "--connections", Integer.toString(concurrency),
                "--warmup", seconds(spec.warmup().toMillis()), "--duration", seconds(spec.duration().toMillis()),
                "--timeout", seconds(spec.timeout().toMillis()), "--io", uring ? "uring" : "epoll"));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("coap-tcp-load did not end");
        }
        if (p.exitValue() == EXIT_NO_URING) {
            throw new IOException("coap-tcp-load: io_uring is not available here (its reason above);"
                    + " --generator c runs on epoll");
        }
        if (p.exitValue() != 0) {
            throw new IOException("coap-tcp-load failed (exit " + p.exitValue() + ")");
        }
        StepResult r = parse(out, concurrency, spec.timeout().toNanos() / 1_000 * 2);
        Thread.sleep(spec.cooldown().toMillis()); // the server settles before the next step
        return r;
    }

    /**
     * The tool's output as a step: its histogram lines become the latency histogram (values
     * above {@code highestMicros} are clamped), connections it saw end count as errors.
     */
    static StepResult parse(String output, int concurrency, long highestMicros) throws IOException {
        Histogram h = new Histogram(1, Math.max(1_000, highestMicros), 3);
        double seconds = -1;
        long timeouts = 0;
        long errors = 0;
        long closed = 0;
        for (String line : output.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 3 && f[0].equals("H")) {
                h.recordValueWithCount(Math.max(1, Math.min(Long.parseLong(f[1]), h.getHighestTrackableValue())),
                        Long.parseLong(f[2]));
            } else if (f.length == 2) {
                switch (f[0]) {
                    case "duration_s" -> seconds = Double.parseDouble(f[1]);
                    case "timeouts" -> timeouts = Long.parseLong(f[1]);
                    case "errors" -> errors = Long.parseLong(f[1]);
                    case "closed" -> closed = Long.parseLong(f[1]);
                    default -> { }
                }
            }
        }
        if (seconds <= 0) {
            throw new IOException("coap-tcp-load printed no result: " + output.lines().limit(3).toList());
        }
        long completed = h.getTotalCount();
        return new StepResult(concurrency, seconds, completed, timeouts, errors + closed, completed / seconds, h);
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1000.0);
    }

    private static String hash(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b)).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
