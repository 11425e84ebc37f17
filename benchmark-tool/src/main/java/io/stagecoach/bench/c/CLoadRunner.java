package io.stagecoach.bench.c;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.RequestTemplate;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepResult.CpuTime;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Runs the steps of a benchmark with the C generator {@code coap-load} instead of the Java event
 * loops: the same request (encoded here by the codec, {@link RequestTemplate}), the same phases,
 * timeout and matching rules, one process per step. Its round-trip histogram is recorded into an
 * HdrHistogram (µs, 3 significant digits) so that the reports read it as they read the Java
 * generator's.
 *
 * @param mode       {@code sources} (one socket, a loopback address per client, batched system
 *                   calls) or {@code sockets} (a socket per client on 127.0.0.1, as the Java loops)
 * @param rate       requests per second offered in all, 0 for a plain closed loop
 * @param watchPid   process whose CPU time is read over each window (the server), 0 for none
 */
public record CLoadRunner(LoadSpec spec, InetSocketAddress server, String mode, double rate, long watchPid) {

    /** Highest latency the histogram tracks, µs (as the Java loops: an hour). */
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    public CLoadRunner {
        if (!(server.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("the C generator speaks IPv4 only: " + server);
        }
        if (!mode.equals("sources") && !mode.equals("sockets")) {
            throw new IllegalArgumentException("C generator mode must be sources or sockets, got " + mode);
        }
        if (!spec.retransmit().isZero()) {
            throw new IllegalArgumentException("the C generator does not retransmit: drop --retransmit");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("rate must not be negative: " + rate);
        }
    }

    /** Runs one step of {@code concurrency} clients. */
    public StepResult run(int concurrency, PrintStream log) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(NativeTool.binary("coap-load").toString(),
                "--server", server.getAddress().getHostAddress() + ":" + server.getPort(),
                "--request", HexFormat.of().formatHex(RequestTemplate.of(spec).bytes()),
                "--clients", Integer.toString(concurrency), "--mode", mode,
                "--warmup", seconds(spec.warmup().toMillis()), "--duration", seconds(spec.duration().toMillis()),
                "--cooldown", seconds(spec.cooldown().toMillis()), "--timeout", seconds(spec.timeout().toMillis())));
        if (rate > 0) {
            argv.addAll(List.of("--rate", Double.toString(rate)));
        }
        if (watchPid > 0) {
            argv.addAll(List.of("--watch-pid", Long.toString(watchPid)));
        }
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (p.waitFor() != 0) {
            throw new IOException("coap-load failed (exit " + p.exitValue() + ") at " + concurrency + " clients");
        }
        StepResult r = parse(out);
        if (log != null) {
            log.printf(Locale.ROOT, "coap-load (%s): %d clients, %.0f req/s%n", mode, concurrency, r.throughputRps());
        }
        return r;
    }

    /** Reads coap-load's output: one {@code result k=v ...} line, then {@code hist MICROS COUNT} lines. */
    static StepResult parse(String out) throws IOException {
        Map<String, String> result = new HashMap<>();
        Histogram h = new Histogram(1, HIGHEST_MICROS, 3);
        for (String line : out.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f[0].equals("result")) {
                for (int i = 1; i < f.length; i++) {
                    int eq = f[i].indexOf('=');
                    if (eq > 0) {
                        result.put(f[i].substring(0, eq), f[i].substring(eq + 1));
                    }
                }
            } else if (f[0].equals("hist") && f.length == 3) {
                h.recordValueWithCount(Math.min(Long.parseLong(f[1]), HIGHEST_MICROS), Long.parseLong(f[2]));
            }
        }
        if (!result.containsKey("completed")) {
            throw new IOException("coap-load printed no result line: " + out);
        }
        long completed = Long.parseLong(result.get("completed"));
        double duration = Double.parseDouble(result.get("duration_s"));
        StepResult r = new StepResult(Integer.parseInt(result.get("clients")), duration, completed,
                Long.parseLong(result.get("timeouts")), Long.parseLong(result.get("errors")),
                duration > 0 ? completed / duration : 0, h, Long.parseLong(result.get("unavailable")), 0);
        return r.withCpu(new CpuTime(Double.parseDouble(result.get("server_cpu_s")),
                Double.parseDouble(result.get("generator_cpu_s"))));
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1000.0);
    }
}
