package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node dies under load (docs/cluster.md, "A node dies"): plain CoAP clients ({@link FailoverProbe})
 * and CoAPBench run against the virtual address; once every probe client has been answered, node
 * {@code victim} gets SIGKILL, and after {@code detect} (the orchestrator noticing) it is taken out
 * of the balancer's maps and its UDP conntrack entries are deleted, as kube-proxy does. The probe's
 * CON retransmissions (RFC 7252 §4.2) then reach a survivor.
 *
 * @param clients          probe clients, each with its own port
 * @param interval         pause after each answer before a client's next request
 * @param ackTimeout       ACK_TIMEOUT of the probe clients (RFC 7252 §4.8: 2 s)
 * @param after            how long the probe runs after the kill
 * @param detect           from the kill to the balancer update
 * @param benchConcurrency CoAPBench clients alongside (0: none)
 */
record NodeFailure(int victim, int clients, long interval, long ackTimeout, Duration after, Duration detect,
        int benchConcurrency) {

    /** What happened. Times in milliseconds from the kill. */
    record Result(int victim, int clients, Map<Integer, Integer> clientsPerNode, List<Long> recoveries,
            long everyClientAgain, long failedAfterKill, int survivorsMoved, long answersFromVictimAfterUpdate,
            int conntrackDeleted, long balancerUpdated, long sent, Bench bench) {

        /** Clients the victim served before it died. */
        int affected() {
            return recoveries.size();
        }

        long recoveryPercentile(double p) {
            if (recoveries.isEmpty()) {
                return 0;
            }
            List<Long> sorted = new ArrayList<>(recoveries);
            Collections.sort(sorted);
            return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p / 100 * sorted.size()) - 1));
        }

        String report() {
            StringBuilder s = new StringBuilder();
            s.append("node ").append(victim).append(" killed (SIGKILL); balancer updated ").append(balancerUpdated)
                    .append(" ms later, ").append(conntrackDeleted).append(" conntrack entries deleted\n");
            s.append("probe clients per node before: ").append(clientsPerNode).append(" (").append(clients)
                    .append(" clients, ").append(sent).append(" requests)\n");
            s.append("clients of node ").append(victim).append(": ").append(affected())
                    .append("; answered again by a survivor after (ms): min ").append(recoveryPercentile(0.0001))
                    .append(", median ").append(recoveryPercentile(50)).append(", max ").append(recoveryPercentile(100))
                    .append("\n");
            s.append("every client answered again after ").append(everyClientAgain).append(" ms; requests given up: ")
                    .append(failedAfterKill).append("; survivors' clients that changed node: ").append(survivorsMoved)
                    .append("\n");
            if (bench != null) {
                s.append("CoAPBench (").append(bench.concurrency()).append(" clients, retransmitting): ")
                        .append(bench.completed()).append(" answered, ").append(String.format("%.0f", bench.rps()))
                        .append(" req/s, ").append(bench.timeouts()).append(" timeouts, ").append(bench.retransmissions())
                        .append(" retransmissions\n");
            }
            return s.toString();
        }
    }

    /** CoAPBench's step: what its JSON report says. */
    record Bench(int concurrency, long completed, long timeouts, long retransmissions, double rps) {
        static Bench parse(int concurrency, String json) {
            return new Bench(concurrency, number(json, "completed"), number(json, "timeouts"),
                    number(json, "retransmissions"), Double.parseDouble(field(json, "throughput_rps")));
        }

        private static long number(String json, String name) {
            return Math.round(Double.parseDouble(field(json, name)));
        }

        private static String field(String json, String name) {
            Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*([0-9.eE+-]+)").matcher(json);
            if (!m.find()) {
                throw new IllegalArgumentException("no " + name + " in CoAPBench's report: " + json);
            }
            return m.group(1);
        }
    }

    Result run(Cluster cluster, Path dir) throws IOException, InterruptedException {
        // long enough for every client to be seen on its node before the kill, and for the
        // retransmissions after it; the kill waits for the former, not for a fixed time
        Duration warm = Duration.ofSeconds(2).plus(Duration.ofMillis(3 * interval));
        Duration total = warm.plus(after).plus(detect);
        NamespacedJvm probe = cluster.probe("probe", clients, total, interval, ackTimeout);
        Path benchJson = dir.resolve("failover-bench.json");
        NamespacedJvm bench = benchConcurrency <= 0 ? null
                : cluster.coapBench("coapbench", benchConcurrency, total, 1000, benchJson);
        probe.awaitLines("start ", 1, Cluster.NODE_START);
        awaitEveryClientAnswered(probe, warm.plusSeconds(10));

        long kill = System.currentTimeMillis();
        cluster.kill(victim);
        if (!detect.isZero()) {
            Thread.sleep(detect.toMillis()); // the time an orchestrator takes to notice: part of what is measured
        }
        int deleted = cluster.topology().removeNode(victim);
        long updated = System.currentTimeMillis();

        if (probe.awaitExit(total.plus(Cluster.NODE_START)) != 0) {
            throw new IOException("the probe failed: " + probe.describe());
        }
        Bench b = null;
        if (bench != null) {
            if (bench.awaitExit(Duration.ofSeconds(60)) != 0) {
                throw new IOException("CoAPBench failed: " + bench.describe());
            }
            b = Bench.parse(benchConcurrency, Files.readString(benchJson));
        }
        return analyse(ProbeLog.parse(probe.stdout()), kill, updated, deleted, b);
    }

    private void awaitEveryClientAnswered(NamespacedJvm probe, Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (ProbeLog.parse(probe.stdout()).nodeBefore(Long.MAX_VALUE).size() < clients) {
            if (System.nanoTime() - end >= 0 || !probe.isAlive()) {
                throw new IOException("not every probe client was answered within " + timeout + ": " + probe.describe());
            }
            probe.awaitExit(Duration.ofMillis(50));
        }
    }

    Result analyse(ProbeLog log, long kill, long updated, int deleted, Bench bench) {
        Map<Integer, Integer> before = log.nodeBefore(kill);
        Map<Integer, Integer> perNode = new TreeMap<>();
        before.values().forEach(n -> perNode.merge(n, 1, Integer::sum));
        List<Long> recoveries = new ArrayList<>();
        long every = 0;
        int moved = 0;
        for (Map.Entry<Integer, Integer> e : before.entrySet()) {
            ProbeLog.Answer next = log.firstAnswerAfter(e.getKey(), kill, victim);
            long took = next == null ? Long.MAX_VALUE : next.at() - kill;
            every = Math.max(every, took);
            if (e.getValue() == victim) {
                recoveries.add(took);
            } else if (next != null && next.node() != e.getValue()) {
                moved++;
            }
        }
        long fromVictim = log.answers().stream().filter(a -> a.at() >= updated && a.node() == victim).count();
        return new Result(victim, clients, perNode, recoveries, every, log.failuresAfter(kill), moved, fromVictim,
                deleted, updated - kill, log.sent(), bench);
    }
}
