package io.stagecoach.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the flood scenario measured and the verdicts {@link #judge} drew from it.
 *
 * @param target      the server, e.g. {@code 127.0.0.1:40000 (plugtest server, own JVM, -Xmx64m, ...)}
 * @param phases      the phases in the order they ran
 * @param probes      what each spoofed request's victim received until the end of the run
 * @param idle        the server's stats after a full GC before the first phase
 * @param end         its stats after a full GC after the last phase, or an empty map when it did
 *                    not answer
 * @param serverAlive whether the server process was still running at the end, answered a CoAP ping
 *                    from an innocent address and, when it has them, the stats command
 * @param banLines    lines of the server's ban log ({@code io.stagecoach.ban})
 * @param threadsLeft {@code bench-flood-} threads still alive after the run
 */
public record FloodResult(String target, List<FloodPhase> phases, List<SpoofedProbes.Result> probes,
        Map<String, Long> idle, Map<String, Long> end, boolean serverAlive, long banLines, List<String> threadsLeft,
        List<Verdict> verdicts) {

    /**
     * Share of the innocent requests of every phase that must succeed. The server must refuse none
     * of them (a verdict of its own); what this bound allows for is loss in the kernel: at the
     * highest rate the attacker can send, the server's socket buffer overflows and drops
     * datagrams whatever their source (docs/security.md: out of scope, the network's job). A
     * request fails only when it and its 4 retransmissions, or their answers, are all lost; 1 %
     * leaves room for that tail on a 2-core machine where the attacker, the server and the
     * clients share the CPUs, while a refusal by the server, or the lasting 5.03
     * (100 % failure after the attack), fails it by far.
     */
    public static final double MIN_SUCCESS = 0.99;
    /** RFC 7252 §11.3 / the endpoint's {@code coap.amplification.factor}: bytes sent per byte received. */
    public static final double MAX_AMPLIFICATION = 3.0;

    public FloodResult {
        Objects.requireNonNull(target, "target");
        phases = List.copyOf(phases);
        probes = List.copyOf(probes);
        idle = Map.copyOf(idle);
        end = Map.copyOf(end);
        threadsLeft = List.copyOf(threadsLeft);
        verdicts = List.copyOf(verdicts);
    }

    /** The result with its verdicts. */
    public static FloodResult judge(String target, List<FloodPhase> phases, List<SpoofedProbes.Result> probes,
            Map<String, Long> idle, Map<String, Long> end, boolean serverAlive, long banLines,
            List<String> threadsLeft) {
        List<Verdict> v = new ArrayList<>();
        for (FloodPhase p : phases) {
            PhaseTally.Snapshot s = p.innocents();
            v.add(new Verdict(String.format(Locale.ROOT, "innocent success >= %.0f %% in phase '%s'", MIN_SUCCESS * 100,
                    p.name()), s.ended() > 0 && s.successRate() >= MIN_SUCCESS, outcomes(s)));
        }
        long refused = phases.stream().mapToLong(p -> p.innocents().refused()).sum();
        StringBuilder where = new StringBuilder();
        for (FloodPhase p : phases) {
            if (p.innocents().refused() > 0) {
                where.append(where.length() == 0 ? "" : ", ").append(p.name()).append(": ")
                        .append(p.innocents().unavailable()).append(" 5.03, ").append(p.innocents().otherCode())
                        .append(" other, ").append(p.innocents().rst()).append(" RST");
            }
        }
        v.add(new Verdict("no innocent request refused (5.03, other code, RST) in any phase", refused == 0,
                refused == 0 ? "none refused" : refused + " refused (" + where + ")"));
        for (SpoofedProbes.Result r : probes) {
            if (!r.observe()) {
                v.add(new Verdict("spoofed " + r.name() + ": <= " + (int) MAX_AMPLIFICATION + " x its bytes",
                        r.ratio() <= MAX_AMPLIFICATION, amplification(r)));
            }
        }
        List<SpoofedProbes.Result> observe = probes.stream().filter(SpoofedProbes.Result::observe).toList();
        if (!observe.isEmpty()) {
            boolean bounded = observe.stream().allMatch(r -> r.ratio() <= MAX_AMPLIFICATION);
            StringBuilder d = new StringBuilder();
            for (SpoofedProbes.Result r : observe) {
                d.append(d.length() == 0 ? "" : "; ").append(r.name()).append(": ").append(amplification(r));
            }
            v.add(new Verdict("silent observe registrants: each got <= " + (int) MAX_AMPLIFICATION
                    + " x its registration", bounded, d.toString()));
        }
        v.add(new Verdict("server alive and answering after the attacks", serverAlive,
                !serverAlive ? "the server process ended, or did not answer a CoAP ping or the stats command"
                        : end.isEmpty() ? "answered a CoAP ping (an external server: no counters)"
                        : String.format(Locale.ROOT, "heap after GC %.1f MB (idle %.1f MB) of %.1f MB",
                                mb(end.get("heap.used")), mb(idle.get("heap.used")), mb(end.get("heap.max")))));
        v.add(new Verdict("no bench-flood thread after the run", threadsLeft.isEmpty(),
                threadsLeft.isEmpty() ? "none" : String.join(", ", threadsLeft)));
        return new FloodResult(target, phases, probes, idle, end, serverAlive, banLines, threadsLeft, v);
    }

    public boolean passed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    static String outcomes(PhaseTally.Snapshot s) {
        return String.format(Locale.ROOT, "%d/%d 2.05 (%.2f %%), %d 5.03, %d other, %d RST, %d timeouts, "
                + "%d retransmissions", s.success(), s.ended(), s.successRate() * 100, s.unavailable(), s.otherCode(),
                s.rst(), s.timeouts(), s.retransmissions());
    }

    static String amplification(SpoofedProbes.Result r) {
        return String.format(Locale.ROOT, "%d B in %d datagram(s) for %d B, x%.2f", r.bytes(), r.datagrams(),
                r.requestBytes(), r.ratio());
    }

    static double mb(Long bytes) {
        return bytes == null ? 0 : bytes / (1024.0 * 1024.0);
    }

    /** The phase table, the server's counters per phase, the spoofed requests, then the verdicts. */
    public String toText() {
        StringBuilder sb = new StringBuilder("flood scenario against " + target + "\n");
        boolean counters = !idle.isEmpty();
        sb.append(String.format(Locale.ROOT, "%-12s %-44s %10s %9s %6s %6s %5s %5s %4s %7s %8s %10s %10s %10s %9s%n",
                "phase", "attack", "datagrams", "rate/s", "sent", "2.05", "5.03", "other", "RST", "timeout", "success",
                "p50", "p99", "max", "heap peak"));
        for (FloodPhase p : phases) {
            PhaseTally.Snapshot s = p.innocents();
            sb.append(String.format(Locale.ROOT, "%-12s %-44s %10s %9s %6d %6d %5d %5d %4d %7d %7.2f%% %10s %10s %10s %9s%n",
                    p.name(), p.attackName(), p.attack() == null ? "-" : Long.toString(p.attack().datagrams()),
                    p.attack() == null ? "-" : String.format(Locale.ROOT, "%.0f", p.attack().rate()), s.sent(),
                    s.success(), s.unavailable(), s.otherCode(), s.rst(), s.timeouts(), s.successRate() * 100,
                    ScenarioReport.ms(s.percentileUs(50)), ScenarioReport.ms(s.percentileUs(99)),
                    ScenarioReport.ms(s.maxUs()), counters ? String.format(Locale.ROOT, "%.1f MB",
                            mb(p.gauge("heap.peak"))) : "-"));
        }
        if (counters) {
            appendCounters(sb);
        } else {
            sb.append("server counters: none (an external server)\n");
        }
        sb.append(String.format(Locale.ROOT, "%-34s %7s %9s %7s %6s %14s  %s%n", "spoofed request (never answered)",
                "request", "datagrams", "bytes", "ratio", "in watch", "first datagrams"));
        for (SpoofedProbes.Result r : probes) {
            sb.append(String.format(Locale.ROOT, "%-34s %5d B %9d %5d B %6.2f %5d / %4d B  %s%n", r.name(),
                    r.requestBytes(), r.datagrams(), r.bytes(), r.ratio(), r.watchDatagrams(), r.watchBytes(),
                    String.join(", ", r.firstDatagrams())));
        }
        ScenarioReport.appendVerdicts(sb, verdicts);
        return sb.toString();
    }

    /** The server's counters over each phase, its gauges at the phase's end, and its heap after a full GC. */
    private void appendCounters(StringBuilder sb) {
        sb.append("server counters over each phase (gauges at its end):\n");
        for (FloodPhase p : phases) {
            sb.append(String.format(Locale.ROOT, "  %-12s", p.name()));
            for (String c : FloodPhase.COUNTERS) {
                if (p.counter(c) != 0) {
                    sb.append(' ').append(c).append('=').append(p.counter(c));
                }
            }
            sb.append(" |");
            for (String g : FloodPhase.GAUGES) {
                if (!g.startsWith("heap.")) {
                    sb.append(' ').append(g).append('=').append(p.gauge(g));
                }
            }
            sb.append('\n');
        }
        sb.append(String.format(Locale.ROOT, "heap after a full GC: idle %.1f MB, after the run %.1f MB, max %.1f MB;"
                + " ban-log lines %d%n", mb(idle.get("heap.used")), mb(end.get("heap.used")), mb(idle.get("heap.max")),
                banLines));
    }

    /** The JSON report's content ({@link FloodJson}). */
    public Map<String, Object> toJsonMap(String command, Map<String, Object> machine) {
        return FloodJson.map(this, command, machine);
    }
}
