package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node dies under load (docs/cluster.md, "A node dies"): plain CoAP clients ({@link FailoverProbe}),
 * optionally coaps clients ({@link DtlsFailoverProbe}) and CoAPBench run against the virtual
 * address; once every probe client has been answered, node {@code victim} gets SIGKILL, and after
 * {@code detect} (the orchestrator noticing) it is taken out of the balancer's maps and its UDP
 * conntrack entries are deleted, as kube-proxy does. The plain probe's CON retransmissions (RFC
 * 7252 §4.2) then reach a survivor; the coaps clients' retransmissions reach one too, which drops
 * the records of a session it does not know, until the client's silence timeout makes it handshake
 * again with the survivor.
 *
 * @param victim           the node to kill; 0: the one serving the most coaps clients (plain ones
 *                         without coaps clients) when every client has been answered
 * @param clients          probe clients, each with its own port
 * @param interval         pause after each answer before a client's next request
 * @param ackTimeout       ACK_TIMEOUT of the probe clients (RFC 7252 §4.8: 2 s)
 * @param after            how long the probe runs after the kill
 * @param detect           from the kill to the balancer update
 * @param benchConcurrency CoAPBench clients alongside (0: none)
 * @param dtlsClients      coaps probe clients alongside (0: none; the nodes must serve coaps with {@link #PSK})
 * @param dtlsSilence      their {@code dtls.client-silence-timeout}
 */
record NodeFailure(int victim, int clients, long interval, long ackTimeout, Duration after, Duration detect,
        int benchConcurrency, int dtlsClients, Duration dtlsSilence) {

    /** The PSK identity and secret of the coaps probe ({@code ./stagecoach server --psk ID:SECRET}). */
    static final String PSK = "sensor-1:secretPSK";

    /** The plain probe only, no coaps clients. */
    NodeFailure(int victim, int clients, long interval, long ackTimeout, Duration after, Duration detect,
            int benchConcurrency) {
        this(victim, clients, interval, ackTimeout, after, detect, benchConcurrency, 0, Duration.ZERO);
    }

    /**
     * What happened to one probe's clients. Times in milliseconds from the kill.
     *
     * @param clientsPerNode        node → clients it served before the kill
     * @param recoveries            for each client of the victim: until its first answer from a survivor
     * @param everyClientAgain      until every client had an answer after the kill (from any live node)
     * @param victimClientsNewSession clients of the victim answered after the kill over a new session
     * @param survivorsNewSession   clients of survivors that handshook again after the kill (should be 0)
     */
    record Recovery(Map<Integer, Integer> clientsPerNode, List<Long> recoveries, long everyClientAgain,
            long failedAfterKill, int survivorsMoved, long answersFromVictimAfterUpdate, long sent,
            int victimClientsNewSession, int survivorsNewSession) {

        int affected() {
            return recoveries.size();
        }

        long percentile(double p) {
            if (recoveries.isEmpty()) {
                return 0;
            }
            List<Long> sorted = new ArrayList<>(recoveries);
            Collections.sort(sorted);
            return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p / 100 * sorted.size()) - 1));
        }
    }

    /** What happened. Times in milliseconds from the kill. */
    record Result(int victim, int clients, Map<Integer, Integer> clientsPerNode, List<Long> recoveries,
            long everyClientAgain, long failedAfterKill, int survivorsMoved, long answersFromVictimAfterUpdate,
            int conntrackDeleted, long balancerUpdated, long sent, Bench bench, Recovery dtls, int dtlsClients) {

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
            if (dtls != null) {
                s.append("coaps clients per node before: ").append(dtls.clientsPerNode()).append(" (").append(dtlsClients)
                        .append(" clients with CID, ").append(dtls.sent()).append(" requests)\n");
                s.append("coaps clients of node ").append(victim).append(": ").append(dtls.affected())
                        .append("; answered by a survivor over a new session after (ms): min ")
                        .append(dtls.percentile(0.0001)).append(", median ").append(dtls.percentile(50))
                        .append(", max ").append(dtls.percentile(100)).append(" (").append(dtls.victimClientsNewSession())
                        .append(" with a new session)\n");
                s.append("every coaps client answered again after ").append(dtls.everyClientAgain())
                        .append(" ms; requests given up: ").append(dtls.failedAfterKill())
                        .append("; survivors' coaps clients that changed node: ").append(dtls.survivorsMoved())
                        .append(", that handshook again: ").append(dtls.survivorsNewSession()).append("\n");
            }
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
        // (coaps clients handshake first, on the same two cores as three node JVMs)
        Duration warm = Duration.ofSeconds(dtlsClients > 0 ? 10 : 2).plus(Duration.ofMillis(3 * interval));
        Duration total = warm.plus(after).plus(detect);
        NamespacedJvm probe = cluster.probe("probe", clients, total, interval, ackTimeout);
        NamespacedJvm dtlsProbe = dtlsClients <= 0 ? null
                : cluster.dtlsProbe("dtls-probe", dtlsClients, total, interval, ackTimeout, dtlsSilence, PSK);
        Path benchJson = dir.resolve("failover-bench.json");
        NamespacedJvm bench = benchConcurrency <= 0 ? null
                : cluster.coapBench("coapbench", benchConcurrency, total, 1000, benchJson);
        probe.awaitLines("start ", 1, Cluster.NODE_START);
        awaitEveryClientAnswered(probe, clients, warm.plusSeconds(10));
        if (dtlsProbe != null) {
            dtlsProbe.awaitLines("start ", 1, Cluster.NODE_START);
            awaitEveryClientAnswered(dtlsProbe, dtlsClients, warm.plusSeconds(10));
        }

        int victim = this.victim != 0 ? this.victim
                : busiest(ProbeLog.parse((dtlsProbe != null ? dtlsProbe : probe).stdout()));
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
        Recovery dtls = null;
        if (dtlsProbe != null) {
            if (dtlsProbe.awaitExit(total.plus(Cluster.NODE_START)) != 0) {
                throw new IOException("the coaps probe failed: " + dtlsProbe.describe());
            }
            dtls = recovery(ProbeLog.parse(dtlsProbe.stdout()), victim, kill, updated);
        }
        Bench b = null;
        if (bench != null) {
            if (bench.awaitExit(Duration.ofSeconds(60)) != 0) {
                throw new IOException("CoAPBench failed: " + bench.describe());
            }
            b = Bench.parse(benchConcurrency, Files.readString(benchJson));
        }
        return analyse(ProbeLog.parse(probe.stdout()), victim, kill, updated, deleted, b, dtls);
    }

    private static void awaitEveryClientAnswered(NamespacedJvm probe, int clients, Duration timeout)
            throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (ProbeLog.parse(probe.stdout()).nodeBefore(Long.MAX_VALUE).size() < clients) {
            if (System.nanoTime() - end >= 0 || !probe.isAlive()) {
                throw new IOException("not every client of " + probe.name() + " was answered within " + timeout + ": "
                        + probe.describe());
            }
            probe.awaitExit(Duration.ofMillis(50));
        }
    }

    /** The node that served the most clients of {@code log} (the lowest ID on a tie). */
    static int busiest(ProbeLog log) {
        Map<Integer, Integer> perNode = new TreeMap<>();
        log.nodeBefore(Long.MAX_VALUE).values().forEach(n -> perNode.merge(n, 1, Integer::sum));
        return perNode.entrySet().stream().max(Map.Entry.<Integer, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).orElseThrow().getKey();
    }

    Result analyse(ProbeLog log, int victim, long kill, long updated, int deleted, Bench bench, Recovery dtls) {
        Recovery r = recovery(log, victim, kill, updated);
        return new Result(victim, clients, r.clientsPerNode(), r.recoveries(), r.everyClientAgain(),
                r.failedAfterKill(), r.survivorsMoved(), r.answersFromVictimAfterUpdate(), deleted, updated - kill,
                r.sent(), bench, dtls, dtlsClients);
    }

    static Recovery recovery(ProbeLog log, int victim, long kill, long updated) {
        Map<Integer, Integer> before = log.nodeBefore(kill);
        Map<Integer, Integer> perNode = new TreeMap<>();
        before.values().forEach(n -> perNode.merge(n, 1, Integer::sum));
        List<Long> recoveries = new ArrayList<>();
        long every = 0;
        int moved = 0;
        int victimNewSession = 0;
        int survivorsNewSession = 0;
        for (Map.Entry<Integer, Integer> e : before.entrySet()) {
            int client = e.getKey();
            ProbeLog.Answer next = log.firstAnswerAfter(client, kill, victim);
            long took = next == null ? Long.MAX_VALUE : next.at() - kill;
            every = Math.max(every, took);
            int sessionsBefore = log.lastAnswerBefore(client, kill).count();
            ProbeLog.Answer last = log.lastAnswerBefore(client, Long.MAX_VALUE);
            if (e.getValue() == victim) {
                recoveries.add(took);
                if (next != null && next.count() > sessionsBefore) {
                    victimNewSession++;
                }
            } else {
                if (next != null && next.node() != e.getValue()) {
                    moved++;
                }
                if (last.count() > sessionsBefore) {
                    survivorsNewSession++;
                }
            }
        }
        long fromVictim = log.answers().stream().filter(a -> a.at() >= updated && a.node() == victim).count();
        return new Recovery(perNode, recoveries, every, log.failuresAfter(kill), moved, fromVictim, log.sent(),
                victimNewSession, survivorsNewSession);
    }
}
