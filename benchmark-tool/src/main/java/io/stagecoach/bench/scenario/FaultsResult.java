package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.network.faults.FaultKind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the faults scenario measured and the verdicts of issue 11 ("Faults") derived by
 * {@link #judge}.
 *
 * @param target      the server tested
 * @param rate        fault rate per kind in phase 2
 * @param kinds       kinds injected in phase 2
 * @param baseline    phase 1, no faults
 * @param faulted     phase 2, faults injected
 * @param injected    faults injected per kind over phase 2 (warm-up and cool-down included)
 * @param server      the server's own counts over the whole run
 * @param drain       the exchange store after the load stopped
 * @param threadsLeft names of {@code stagecoach-} threads alive after the server was destroyed
 */
public record FaultsResult(String target, double rate, Set<FaultKind> kinds, StepResult baseline, StepResult faulted,
        Map<FaultKind, Long> injected, ServerCounts server, Drain drain, List<String> threadsLeft,
        List<Verdict> verdicts) {

    /** Phase 2 must keep at least this share of the phase-1 throughput. */
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
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(faulted, "faulted");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(drain, "drain");
        kinds = Set.copyOf(kinds);
        injected = Map.copyOf(injected);
        threadsLeft = List.copyOf(threadsLeft);
        verdicts = List.copyOf(verdicts);
    }

    /** The result with the verdicts computed from the measurements. */
    public static FaultsResult judge(String target, double rate, Set<FaultKind> kinds, StepResult baseline,
            StepResult faulted, Map<FaultKind, Long> injected, ServerCounts server, Drain drain,
            List<String> threadsLeft) {
        Map<FaultKind, Long> inj = new EnumMap<>(FaultKind.class);
        for (FaultKind k : FaultKind.values()) {
            inj.put(k, injected.getOrDefault(k, 0L));
        }
        List<Verdict> v = new ArrayList<>(6);
        double ratio = baseline.throughputRps() > 0 ? faulted.throughputRps() / baseline.throughputRps() : 0;
        v.add(new Verdict(String.format(Locale.ROOT, "phase 2 req/s >= %.0f %% of phase 1", MIN_THROUGHPUT_RATIO * 100),
                baseline.completed() > 0 && ratio >= MIN_THROUGHPUT_RATIO,
                String.format(Locale.ROOT, "%.1f vs %.1f req/s, %.1f %%", faulted.throughputRps(),
                        baseline.throughputRps(), ratio * 100)));
        v.add(new Verdict("phase 2 timeouts == 0", faulted.timeouts() == 0 && faulted.completed() > 0,
                faulted.timeouts() + " timeouts, " + faulted.retransmissions() + " retransmissions, "
                        + faulted.completed() + " completed"));
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
        return new FaultsResult(target, rate, kinds, baseline, faulted, inj, server, drain, threadsLeft, v);
    }

    public boolean passed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    /** The table of both phases, the fault counts, then the verdict lines. */
    public String toText() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "faults scenario against %s: rate %s of %s%n",
                target, rate, new TreeSet<>(kinds)));
        sb.append(String.format(Locale.ROOT, "%-18s %7s %10s %10s %9s %8s %9s %7s %10s %10s%n", "phase", "clients",
                "req/s", "completed", "timeouts", "retrans", "non-2.xx", "5.03", "p50", "p99"));
        row(sb, "1 no faults", baseline);
        row(sb, "2 faults", faulted);
        sb.append("injected (phase 2):");
        injected.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> sb.append(' ').append(e.getKey()).append('=').append(e.getValue()));
        sb.append(String.format(Locale.ROOT, "%nserver: receiver restarts %d, handler errors %d, layer errors %d, "
                + "executor rejections %d%n", server.receiverRestarts(), server.handlerErrors(), server.stackErrors(),
                server.rejected()));
        for (Verdict x : verdicts) {
            sb.append(x).append('\n');
        }
        return sb.append(passed() ? "RESULT PASS\n" : "RESULT FAIL\n").toString();
    }

    private static void row(StringBuilder sb, String name, StepResult s) {
        sb.append(String.format(Locale.ROOT, "%-18s %7d %10.1f %10d %9d %8d %9d %7d %10s %10s%n", name,
                s.concurrency(), s.throughputRps(), s.completed(), s.timeouts(), s.retransmissions(), s.errors(),
                s.unavailable(), ms(s.percentileUs(50)), ms(s.percentileUs(99))));
    }

    private static String ms(long micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
    }

    /** The JSON report's content. */
    public Map<String, Object> toJsonMap(String command, Map<String, Object> machine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        m.put("machine", machine);
        m.put("target", target);
        m.put("rate", rate);
        m.put("kinds", new ArrayList<>(new TreeSet<>(kinds)).stream().map(Enum::name).toList());
        Map<String, Object> phases = new LinkedHashMap<>();
        phases.put("no_faults", phase(baseline));
        phases.put("faults", phase(faulted));
        m.put("phases", phases);
        Map<String, Object> inj = new LinkedHashMap<>();
        injected.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> inj.put(e.getKey().name(), e.getValue()));
        m.put("injected", inj);
        Map<String, Object> srv = new LinkedHashMap<>();
        srv.put("receiver_restarts", server.receiverRestarts());
        srv.put("handler_errors", server.handlerErrors());
        srv.put("stack_errors", server.stackErrors());
        srv.put("executor_rejections", server.rejected());
        m.put("server", srv);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("open_at_stop", drain.atStop());
        d.put("open_after_wait", drain.remaining());
        d.put("wait_ms", drain.millis());
        d.put("limit_ms", drain.limitMillis());
        m.put("drain", d);
        m.put("threads_left", threadsLeft);
        List<Object> vs = new ArrayList<>();
        for (Verdict x : verdicts) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", x.name());
            e.put("passed", x.passed());
            e.put("detail", x.detail());
            vs.add(e);
        }
        m.put("verdicts", vs);
        m.put("passed", passed());
        return m;
    }

    private static Map<String, Object> phase(StepResult s) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("clients", s.concurrency());
        g.put("duration_s", s.durationS());
        g.put("throughput_rps", s.throughputRps());
        g.put("completed", s.completed());
        g.put("timeouts", s.timeouts());
        g.put("retransmissions", s.retransmissions());
        g.put("non_2xx", s.errors());
        g.put("service_unavailable_503", s.unavailable());
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", s.completed() == 0 ? null : s.percentileUs(50));
        lat.put("p99", s.completed() == 0 ? null : s.percentileUs(99));
        lat.put("max", s.completed() == 0 ? null : s.maxUs());
        g.put("latency_us", lat);
        return g;
    }
}
