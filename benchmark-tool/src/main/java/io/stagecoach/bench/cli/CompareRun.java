package io.stagecoach.bench.cli;

import io.stagecoach.bench.compare.ServerProcess;
import io.stagecoach.bench.compare.ServerSpec;
import io.stagecoach.bench.load.NoAnswerException;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.report.HtmlReport;
import io.stagecoach.bench.report.MachineInfo;
import io.stagecoach.bench.report.TextTable;
import io.stagecoach.bench.tcp.CoapTcpLoad;
import io.stagecoach.core.coap.CoapUri;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code stagecoach bench compare}: starts each server as its own process, one after the other
 * (for a {@code coap+tcp} URI the TCP servers of {@link ServerSpec#tcpDefaults}),
 * runs the same steps against each and prints every table plus the throughput ratio of each
 * server to the first one that ran; {@code --html} overlays them, {@code --json} writes
 * {@code {"command", "machine", "servers": [{"name", "steps": [...]}]}}. A server that does not
 * come up within 20 s is reported and skipped.
 */
final class CompareRun {

    private static final long READY_TIMEOUT_MS = 20_000;

    private CompareRun() {
    }

    static int main(BenchOptions o, String command) throws IOException, InterruptedException {
        PrintStream out = System.out;
        PrintStream log = System.err;
        String path = String.join("/", o.load().uri().path());
        boolean tcp = o.load().uri().isReliableTransport();
        List<ServerSpec> servers = new ArrayList<>();
        if (!o.noDefaultServers()) {
            if (tcp) {
                servers.addAll(ServerSpec.tcpDefaults(path, tcpEchoCommand(o, log)));
            } else {
                servers.addAll(ServerSpec.defaults(path));
                if (o.cGenerator()) {
                    servers.add(ServerSpec.cEcho(path)); // the ceiling with batched system calls
                }
            }
        }
        for (String s : o.serverCmds()) {
            servers.add(ServerSpec.parse(s, path));
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("compare needs servers: --server-cmd NAME[:PATH]=COMMAND");
        }
        pinSelf(o.clientCpus(), log);
        if (o.clientCpus() != null && o.serverCpus() == null) {
            // Child processes inherit the CPU affinity of this JVM.
            log.println("compare: servers inherit the generator's CPUs " + o.clientCpus() + " (no --server-cpus)");
        }
        Path logs = Files.createTempDirectory("coapbench-compare");
        List<BenchReport> reports = new ArrayList<>();
        for (ServerSpec s : servers) {
            int port = tcp ? freeTcpPort() : freeUdpPort();
            Path logFile = logs.resolve(s.name() + ".log");
            log.printf("compare: starting %s: %s (log %s)%n", s.name(), s.description().replace("{port}", "" + port), logFile);
            try (ServerProcess p = ServerProcess.start(s.name(), s.command(), port, o.serverCpus(), logFile)) {
                boolean up = tcp ? p.awaitReadyTcp(port, s.path(), READY_TIMEOUT_MS)
                        : p.awaitReady(port, s.path(), READY_TIMEOUT_MS);
                if (!up) {
                    log.printf("compare: %s did not answer within %d s, skipped (see %s)%n", s.name(),
                            READY_TIMEOUT_MS / 1000, logFile);
                    continue;
                }
                BenchOptions forServer = withUri(o, CoapUri.parse(o.load().uri().scheme() + "://127.0.0.1:" + port
                        + "/" + s.path()));
                // the C generator reads the server's CPU time over each window
                BenchReport r = LocalRun.run(forServer, s.name(), command, log, p.pid());
                reports.add(r);
                out.println("== " + s.name() + " (" + s.description() + ")");
                out.print(TextTable.render(r.steps()));
            } catch (NoAnswerException e) {
                log.println("compare: " + s.name() + ": " + e.getMessage() + " - skipped");
            }
        }
        if (reports.isEmpty()) {
            log.println("compare: no server could be measured");
            return 3;
        }
        out.print(ratios(reports));
        if (o.json() != null) {
            Map<String, Object> root = new LinkedHashMap<>();
            root.put("command", command);
            root.put("machine", MachineInfo.collect());
            List<Object> list = new ArrayList<>();
            for (BenchReport r : reports) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("name", r.name());
                one.put("steps", r.toJsonTree().get("steps"));
                list.add(one);
            }
            root.put("servers", list);
            Outputs.write(o.json(), BenchReport.json(root));
        }
        if (o.html() != null) {
            Outputs.write(o.html(), HtmlReport.render("CoAPBench compare", reports));
        }
        return 0;
    }

    /** Throughput per step and server, and the ratio to the first server. */
    static String ratios(List<BenchReport> reports) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%n%8s", "clients"));
        for (BenchReport r : reports) {
            sb.append(String.format(Locale.ROOT, " %22s", r.name() + " req/s"));
        }
        sb.append('\n');
        List<StepResult> base = reports.get(0).steps();
        for (int i = 0; i < base.size(); i++) {
            sb.append(String.format(Locale.ROOT, "%8d", base.get(i).concurrency()));
            for (BenchReport r : reports) {
                StepResult s = r.steps().get(i);
                double ratio = base.get(i).throughputRps() > 0 ? s.throughputRps() / base.get(i).throughputRps() : 0;
                sb.append(String.format(Locale.ROOT, " %13.0f (%5.2fx)", s.throughputRps(), ratio));
            }
            sb.append('\n');
        }
        return sb.append("ratios are to ").append(reports.get(0).name()).append('\n').toString();
    }

    /**
     * The C echo server's command, or {@code null} (no echo server, said on {@code log}) when the
     * Java generator runs and the C tool cannot be built here (no gcc): the servers are still compared.
     */
    private static String tcpEchoCommand(BenchOptions o, PrintStream log) throws IOException, InterruptedException {
        try {
            return CoapTcpLoad.build().echoCommand("127.0.0.1", o.uringGenerator());
        } catch (IOException e) {
            if (o.cGenerator()) {
                throw e;
            }
            log.println("compare: no echo server (generator ceiling) for coap+tcp: " + e.getMessage());
            return null;
        }
    }

    private static BenchOptions withUri(BenchOptions o, CoapUri uri) {
        return new BenchOptions(o.load().withUri(uri), o.steps(), null, null, null, null, o.quiet(), o.slaves(),
                o.exec(), o.startDelayMs(), o.serverCmds(), o.serverCpus(), o.clientCpus(), o.noDefaultServers(),
                o.generator(), o.rate());
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Pins this JVM (all its threads) to {@code cpus} with taskset, if asked. */
    private static void pinSelf(String cpus, PrintStream log) throws IOException, InterruptedException {
        if (cpus == null) {
            return;
        }
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(ProcessHandle.current().pid()))
                .redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("taskset failed to pin the load generator to CPUs " + cpus + ": " + text.trim());
        }
        log.println("compare: load generator pinned to CPUs " + cpus);
    }
}
