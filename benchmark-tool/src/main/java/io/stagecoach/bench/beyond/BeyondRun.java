package io.stagecoach.bench.beyond;

import io.stagecoach.bench.c.NativeTool;
import io.stagecoach.bench.compare.ServerProcess;
import io.stagecoach.bench.compare.ServerSpec;
import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.report.MachineInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code stagecoach bench observe} and {@code stagecoach bench blockwise}: each server of
 * {@code --server-cmd NAME[:PATH]=COMMAND} is started as its own process (as in {@code compare}),
 * optionally pinned, and measured by the C tool of the kind ({@code coap-observe}, {@code
 * coap-block}) with the same options, the tool pinned to {@code --client-cpus} and reading the
 * server's CPU time. {@code --runs K} repeats the whole list K times, alternating the servers.
 * {@code --before NAME=COMMAND} runs a shell command once that server answers (e.g. upload the
 * body a server is to serve). Options this class does not know go to the tool.
 */
public final class BeyondRun {

    private static final long READY_TIMEOUT_MS = 20_000;

    /** One kind of measurement: its tool, default path and the result keys of its summary. */
    enum Kind {
        OBSERVE("coap-observe", "obs", List.of("registered", "complete_rounds", "median_change_to_last_ms",
                "max_change_to_last_ms", "mean_notifications_per_s", "con", "non", "stale",
                "server_cpu_us_per_notification")),
        BLOCKWISE("coap-block", "large", List.of("bodies", "goodput_MBps", "median_body_ms", "min_body_ms",
                "max_body_ms", "us_per_block", "retransmissions", "echo_options", "server_cpu_us_per_block"));

        final String tool;
        final String defaultPath;
        final List<String> summary;

        Kind(String tool, String defaultPath, List<String> summary) {
            this.tool = tool;
            this.defaultPath = defaultPath;
            this.summary = summary;
        }
    }

    private BeyondRun() {
    }

    /** {@code bench observe ...}: returns the exit code. */
    public static int observe(String[] args, String command, PrintStream out, PrintStream log) throws IOException {
        return run(Kind.OBSERVE, args, command, out, log);
    }

    /** {@code bench blockwise ...}: returns the exit code. */
    public static int blockwise(String[] args, String command, PrintStream out, PrintStream log) throws IOException {
        return run(Kind.BLOCKWISE, args, command, out, log);
    }

    static int run(Kind kind, String[] args, String command, PrintStream out, PrintStream log) throws IOException {
        List<ServerSpec> servers = new ArrayList<>();
        Map<String, String> before = new LinkedHashMap<>();
        List<String> toolArgs = new ArrayList<>();
        String serverCpus = null;
        String clientCpus = null;
        Path json = null;
        int runs = 1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--server-cmd" -> servers.add(ServerSpec.parse(value(args, ++i, a), kind.defaultPath));
                case "--before" -> {
                    String v = value(args, ++i, a);
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--before needs NAME=COMMAND, got '" + v + "'");
                    }
                    before.put(v.substring(0, eq), v.substring(eq + 1));
                }
                case "--server-cpus" -> serverCpus = value(args, ++i, a);
                case "--client-cpus" -> clientCpus = value(args, ++i, a);
                case "--json" -> json = Path.of(value(args, ++i, a));
                case "--runs" -> runs = Integer.parseInt(value(args, ++i, a));
                default -> {
                    if (!a.startsWith("--")) {
                        throw new IllegalArgumentException("unexpected argument '" + a + "'");
                    }
                    toolArgs.add(a);
                    toolArgs.add(value(args, ++i, a));
                }
            }
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException(kind.name().toLowerCase(Locale.ROOT)
                    + " needs servers: --server-cmd NAME[:PATH]=COMMAND");
        }
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1, got " + runs);
        }
        Path binary = NativeTool.binary(kind.tool);
        Path logs = Files.createTempDirectory("coapbench-" + kind.tool);
        List<Map<String, Object>> measured = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<ToolResult> results = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            for (ServerSpec s : servers) {
                int port = freeUdpPort();
                Path logFile = logs.resolve(s.name() + "-" + run + ".log");
                log.printf("%s: run %d, starting %s: %s (log %s)%n", kind.tool, run, s.name(),
                        s.command().replace("{port}", Integer.toString(port)), logFile);
                try (ServerProcess p = ServerProcess.start(s.name(), s.command(), port, serverCpus, logFile)) {
                    if (!p.awaitReady(port, s.path(), READY_TIMEOUT_MS)) {
                        log.printf("%s: %s did not answer within %d s, skipped (see %s)%n", kind.tool, s.name(),
                                READY_TIMEOUT_MS / 1000, logFile);
                        continue;
                    }
                    if (before.containsKey(s.name())) {
                        shell(before.get(s.name()).replace("{port}", Integer.toString(port)), log);
                    }
                    List<String> argv = new ArrayList<>();
                    if (clientCpus != null) {
                        argv.addAll(List.of("taskset", "-c", clientCpus));
                    }
                    argv.addAll(List.of(binary.toString(), "--server", "127.0.0.1:" + port, "--path", s.path(),
                            "--watch-pid", Long.toString(p.pid())));
                    argv.addAll(toolArgs);
                    ToolResult r = runTool(argv);
                    out.println("== " + s.name() + " run " + run + " (" + s.command() + ")");
                    r.lines().forEach(out::println);
                    out.flush();
                    names.add(s.name());
                    results.add(r);
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("name", s.name());
                    one.put("run", run);
                    one.put("command", s.command());
                    one.put("result", new LinkedHashMap<>(r.result()));
                    one.put("lines", r.lines());
                    measured.add(one);
                } catch (IOException e) {
                    log.println(kind.tool + ": " + s.name() + ": " + e.getMessage() + " - skipped");
                }
            }
        }
        if (results.isEmpty()) {
            log.println(kind.tool + ": no server could be measured");
            return 3;
        }
        out.print(summary(kind, names, results));
        if (json != null) {
            Map<String, Object> root = new LinkedHashMap<>();
            root.put("command", command);
            root.put("machine", MachineInfo.collect());
            root.put("runs", measured);
            Path parent = json.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(json, BenchReport.json(root), StandardCharsets.UTF_8);
        }
        return 0;
    }

    /** One row per measured run: the server's name and the kind's summary keys. */
    static String summary(Kind kind, List<String> names, List<ToolResult> results) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%n%-24s", "server"));
        for (String k : kind.summary) {
            sb.append(' ').append(k);
        }
        sb.append('\n');
        for (int i = 0; i < results.size(); i++) {
            sb.append(String.format(Locale.ROOT, "%-24s", names.get(i)));
            for (String k : kind.summary) {
                sb.append(' ').append(String.format(Locale.ROOT, "%" + k.length() + "s", results.get(i).get(k)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static ToolResult runTool(List<String> argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        try {
            int exit = p.waitFor();
            if (exit != 0 && !text.contains("result ")) {
                throw new IOException(argv.get(argv.indexOf("--server") - 1) + " failed (exit " + exit + ")");
            }
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return ToolResult.parse(text);
    }

    private static void shell(String command, PrintStream log) throws IOException {
        log.println("before: " + command);
        Process p = new ProcessBuilder("/bin/sh", "-c", command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (p.waitFor() != 0) {
                throw new IOException("'" + command + "' failed: " + text.strip());
            }
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }
}
