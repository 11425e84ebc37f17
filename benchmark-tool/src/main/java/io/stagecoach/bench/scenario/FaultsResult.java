package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepResult;
import io.stagecoach.examples.faults.FaultKind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the faults scenario measured and the fault verdicts derived by
 * {@link #judge}.
 *
 * @param target      the server tested
 * @param rate        fault rate per kind in the faulty phases
 * @param kinds       kinds injected in the faulty phases
 * @param warmup      the unjudged fault-free phase run before round 1 to warm the JIT
 * @param rounds      the judged rounds, in the order they ran
 * @param injected    faults injected per kind over the whole run (warm-ups and cool-downs included)
 * @param server      the server's own counts over the whole run
 * @param drain       the exchange store after the load of the last round stopped
 * @param threadsLeft names of {@code stagecoach-} threads alive after the server was destroyed
 */
public record FaultsResult(String target, double rate, Set<FaultKind> kinds, StepResult warmup,
        List<FaultsRound> rounds, Map<FaultKind, Long> injected, ServerCounts server, Drain drain,
        List<String> threadsLeft, List<Verdict> verdicts) {

    /** The median faulty phase must keep at least this share of the median fault-free throughput. */
    public static final double MIN_THROUGHPUT_RATIO = 0.8;

    /**
     * @param receiverRestarts receive threads that died and were replaced (UdpConnector)
     * @param handlerErrors    handlers that threw, answered 5.00 (RFC 7252 §5.9.3.1)
     * @param stackErrors      requests on which a layer threw, answered 5.00
     * @param rejected         requests the resource executor refused, answered 5.03 (§5.9.3.4)
     */
    public record ServerCounts(long receiverRestarts, long handlerErrors, long stackErrors, long rejected) {
    }

    /**
     * @param atStop    open exchanges when the load had stopped (after the cool-down)
     * @param remaining open exchanges when the wait ended
     * @param millis    how long the wait took
     * @param limitMillis the longest wait allowed
     */
    public record Drain(int atStop, int remaining, long millis, long limitMillis) {
    }

    public FaultsResult {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(drain, "drain");
        kinds = Set.copyOf(kinds);
        rounds = List.copyOf(rounds);
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("a result needs at least one round");
        }
        injected = Map.copyOf(injected);
        threadsLeft = List.copyOf(threadsLeft);
        verdicts = List.copyOf(verdicts);
    }

    /**
     * The result with the verdicts computed from the measurements. Throughput is judged on the
     * medians over the rounds (one disturbed phase on a shared machine moves a median little),
     * timeouts over all faulty phases together, the fault counts over the whole run.
     */
    public static FaultsResult judge(String target, double rate, Set<FaultKind> kinds, StepResult warmup,
            List<FaultsRound> rounds, Map<FaultKind, Long> injected, ServerCounts server, Drain drain,
            List<String> threadsLeft) {
        Map<FaultKind, Long> inj = new EnumMap<>(FaultKind.class);
        for (FaultKind k : FaultKind.values()) {
            inj.put(k, injected.getOrDefault(k, 0L));
        }
        List<Verdict> v = new ArrayList<>(6);
        double clean = FaultsRound.median(rounds, r -> r.clean().throughputRps());
        double faulty = FaultsRound.median(rounds, r -> r.faulty().throughputRps());
        double ratio = clean > 0 ? faulty / clean : 0;
        v.add(new Verdict(String.format(Locale.ROOT, "median faulty req/s >= %.0f %% of median fault-free req/s",
                MIN_THROUGHPUT_RATIO * 100), clean > 0 && ratio >= MIN_THROUGHPUT_RATIO,
                String.format(Locale.ROOT, "%.1f vs %.1f req/s over %d round(s), %.1f %%", faulty, clean,
                        rounds.size(), ratio * 100)));
        long timeouts = rounds.stream().mapToLong(r -> r.faulty().timeouts()).sum();
        long retrans = rounds.stream().mapToLong(r -> r.faulty().retransmissions()).sum();
        long completed = rounds.stream().mapToLong(r -> r.faulty().completed()).sum();
        boolean allServed = rounds.stream().allMatch(r -> r.faulty().completed() > 0);
        v.add(new Verdict("faulty-phase timeouts == 0", timeouts == 0 && allServed,
                timeouts + " timeouts, " + retrans + " retransmissions, " + completed + " completed in "
                        + rounds.size() + " faulty phase(s)" + (allServed ? "" : ", one completed nothing")));
        v.add(new Verdict("every dead receive thread replaced", server.receiverRestarts() == inj.get(FaultKind.RECEIVER_DIES),
                server.receiverRestarts() + " restarts, " + inj.get(FaultKind.RECEIVER_DIES) + " RECEIVER_DIES"));
        boolean answered = server.handlerErrors() == inj.get(FaultKind.HANDLER_THROWS)
                && server.stackErrors() == inj.get(FaultKind.LAYER_THROWS)
                && server.rejected() == inj.get(FaultKind.EXECUTOR_REJECTS);
        v.add(new Verdict("every injected handler/layer fault answered 5.00, rejection 5.03", answered,
                String.format(Locale.ROOT, "handler %d/%d, layer %d/%d, executor %d/%d (answered/injected)",
                        server.handlerErrors(), inj.get(FaultKind.HANDLER_THROWS), server.stackErrors(),
                        inj.get(FaultKind.LAYER_THROWS), server.rejected(), inj.get(FaultKind.EXECUTOR_REJECTS))));
        v.add(new Verdict("exchange store drains to 0", drain.remaining() == 0,
                drain.atStop() + " open when the load stopped, " + drain.remaining() + " after " + drain.millis()
                        + " ms (limit " + drain.limitMillis() + " ms)"));
        v.add(new Verdict("no stagecoach- thread after destroy()", threadsLeft.isEmpty(),
                threadsLeft.isEmpty() ? "none" : String.join(", ", threadsLeft)));
        return new FaultsResult(target, rate, kinds, warmup, rounds, inj, server, drain, threadsLeft, v);
    }

    public boolean passed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    /** Median req/s of the fault-free phases. */
    public double cleanMedianRps() {
        return FaultsRound.median(rounds, r -> r.clean().throughputRps());
    }

    /** Median req/s of the faulty phases. */
    public double faultyMedianRps() {
        return FaultsRound.median(rounds, r -> r.faulty().throughputRps());
    }

    /** Every phase in the order it ran, the medians, the fault counts, then the verdict lines. */
    public String toText() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "faults scenario against %s: rate %s of %s, "
                + "%d round(s)%n", target, rate, new TreeSet<>(kinds), rounds.size()));
        sb.append(String.format(Locale.ROOT, "%-18s %7s %10s %10s %9s %8s %9s %7s %10s %10s%n", "phase", "clients",
                "req/s", "completed", "timeouts", "retrans", "non-2.xx", "5.03", "p50", "p99"));
        row(sb, "warm-up (unjudged)", warmup);
        for (FaultsRound r : rounds) {
            String first = r.faultyFirst() ? " faulty" : " clean";
            String second = r.faultyFirst() ? " clean" : " faulty";
            row(sb, "round " + r.number() + first, r.inOrder().get(0));
            row(sb, "round " + r.number() + second, r.inOrder().get(1));
        }
        double clean = cleanMedianRps();
        sb.append(String.format(Locale.ROOT, "median req/s: clean %.1f, faulty %.1f, ratio %.1f %%%n", clean,
                faultyMedianRps(), clean > 0 ? faultyMedianRps() / clean * 100 : 0.0));
        sb.append("injected (whole run):");
        injected.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> sb.append(' ').append(e.getKey()).append('=').append(e.getValue()));
        sb.append(String.format(Locale.ROOT, "%nserver: receiver restarts %d, handler errors %d, layer errors %d, "
                + "executor rejections %d%n", server.receiverRestarts(), server.handlerErrors(), server.stackErrors(),
                server.rejected()));
        ScenarioReport.appendVerdicts(sb, verdicts);
        return sb.toString();
    }

    private static void row(StringBuilder sb, String name, StepResult s) {
        sb.append(String.format(Locale.ROOT, "%-18s %7d %10.1f %10d %9d %8d %9d %7d %10s %10s%n", name,
                s.concurrency(), s.throughputRps(), s.completed(), s.timeouts(), s.retransmissions(), s.errors(),
                s.unavailable(), ScenarioReport.ms(s.percentileUs(50)), ScenarioReport.ms(s.percentileUs(99))));
    }

    /** The JSON report's content ({@link FaultsJson}). */
    public Map<String, Object> toJsonMap(String command, Map<String, Object> machine) {
        return FaultsJson.map(this, command, machine);
    }
}
