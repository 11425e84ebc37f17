package io.stagecoach.bench.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./stagecoach bench cluster}: the failure measurements of docs/cluster.md on this host
 * (root, Linux, {@code ip}, {@code nft}, {@code conntrack}): a topology of network namespaces, N
 * real {@code ./stagecoach server} nodes behind nftables, clients in their own namespace; one
 * node is killed under load and the report says how the clients fared.
 */
public final class ClusterMain {

    static final String USAGE = """
            usage: stagecoach bench cluster [options]        (root; Linux with ip, nft, conntrack)
              --nodes N            nodes behind the balancer (default 3)
              --clients N          plain CoAP probe clients, one port each (default 60)
              --interval MS        a probe client's pause after each answer (default 200)
              --ack-timeout MS     the probe clients' ACK_TIMEOUT, RFC 7252 4.8 (default 2000)
              --after S            seconds the probe runs after the kill (default 10)
              --detect MS          from the kill to the balancer update (default 0)
              --concurrency N      CoAPBench clients alongside, retransmitting after 1 s (default 60; 0 = none)
              --runs N             repeat the whole measurement N times, a new cluster each (default 1)
              --keep DIR           keep the processes' output in DIR (default: a temporary directory, deleted)
            """;

    private ClusterMain() {
    }

    /** Runs the command; its exit status (0 done, 1 failed, 2 bad options). */
    public static int run(String[] args, java.io.PrintStream out, java.io.PrintStream err) {
        try {
            return main0(args, out, err);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            err.print("stagecoach bench cluster: bad option value (" + e.getMessage() + ")\n" + USAGE);
            return 2;
        } catch (java.io.IOException | RuntimeException e) {
            err.println("stagecoach bench cluster: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static int main0(String[] args, java.io.PrintStream out, java.io.PrintStream err)
            throws java.io.IOException, InterruptedException {
        int nodes = 3;
        int clients = 60;
        long interval = 200;
        long ackTimeout = 2000;
        double after = 10;
        long detect = 0;
        int concurrency = 60;
        int runs = 1;
        Path keep = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--nodes" -> nodes = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--interval" -> interval = Long.parseLong(args[++i]);
                case "--ack-timeout" -> ackTimeout = Long.parseLong(args[++i]);
                case "--after" -> after = Double.parseDouble(args[++i]);
                case "--detect" -> detect = Long.parseLong(args[++i]);
                case "--concurrency" -> concurrency = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--keep" -> keep = Path.of(args[++i]);
                case "-h", "--help" -> {
                    out.print(USAGE);
                    return 0;
                }
                default -> {
                    err.print("stagecoach bench cluster: unknown option " + args[i] + "\n" + USAGE);
                    return 2;
                }
            }
        }
        NodeFailure failure = new NodeFailure(Math.min(2, nodes), clients, interval, ackTimeout,
                Duration.ofMillis(Math.round(after * 1000)), Duration.ofMillis(detect), concurrency);
        List<NodeFailure.Result> results = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            Path dir = keep != null ? Files.createDirectories(keep.resolve("run" + run))
                    : Files.createTempDirectory("stagecoach-cluster");
            try (Cluster cluster = Cluster.start(nodes, dir, List.of("-XX:+UseSerialGC", "-Xmx256m"), List.of())) {
                out.println("== run " + run + " (cluster " + cluster.topology().prefix() + ")");
                NodeFailure.Result r = failure.run(cluster, dir);
                results.add(r);
                out.print(r.report());
                out.flush();
            } finally {
                if (keep == null) {
                    deleteTree(dir);
                }
            }
        }
        if (runs > 1) {
            List<Long> every = results.stream().map(NodeFailure.Result::everyClientAgain).sorted().toList();
            out.println("== over " + runs + " runs: every client answered again after (ms) " + every
                    + "; requests given up: " + results.stream().mapToLong(NodeFailure.Result::failedAfterKill).sum());
        }
        return 0;
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
