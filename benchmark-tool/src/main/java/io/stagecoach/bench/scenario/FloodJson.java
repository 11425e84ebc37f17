package io.stagecoach.bench.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON report of {@link FloodResult}: phases with attack, innocents and server counters, probes, heap. */
final class FloodJson {

    private FloodJson() {
    }

    static Map<String, Object> map(FloodResult r, String command, Map<String, Object> machine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        m.put("machine", machine);
        m.put("target", r.target());
        List<Object> phases = new ArrayList<>();
        for (FloodPhase p : r.phases()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("phase", p.name());
            e.put("attack", p.attackName());
            if (p.attack() != null) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("datagrams", p.attack().datagrams());
                a.put("bytes", p.attack().bytes());
                a.put("seconds", p.attack().seconds());
                a.put("rate_per_s", p.attack().rate());
                a.put("ports", p.attack().ports());
                a.put("threads", p.attack().threads());
                e.put("sent", a);
            }
            e.put("innocents", innocents(p.innocents()));
            Map<String, Object> server = new LinkedHashMap<>();
            FloodPhase.COUNTERS.forEach(c -> server.put(c, p.counter(c)));
            FloodPhase.GAUGES.forEach(g -> server.put(g + "_at_end", p.gauge(g)));
            e.put("server", server);
            phases.add(e);
        }
        m.put("phases", phases);
        List<Object> probes = new ArrayList<>();
        for (SpoofedProbes.Result x : r.probes()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("request", x.name());
            e.put("request_bytes", x.requestBytes());
            e.put("observe", x.observe());
            e.put("datagrams", x.datagrams());
            e.put("bytes", x.bytes());
            e.put("ratio", x.ratio());
            e.put("watch_datagrams", x.watchDatagrams());
            e.put("watch_bytes", x.watchBytes());
            e.put("watched_s", x.watchedSeconds());
            e.put("first", x.firstDatagrams());
            probes.add(e);
        }
        m.put("spoofed", probes);
        Map<String, Object> heap = new LinkedHashMap<>();
        heap.put("idle_after_gc", r.idle().get("heap.used"));
        heap.put("end_after_gc", r.end().get("heap.used"));
        heap.put("max", r.idle().get("heap.max"));
        m.put("heap_bytes", heap);
        m.put("server_alive", r.serverAlive());
        m.put("ban_log_lines", r.banLines());
        m.put("threads_left", r.threadsLeft());
        m.put("verdicts", ScenarioReport.verdictsJson(r.verdicts()));
        m.put("passed", r.passed());
        return m;
    }

    private static Map<String, Object> innocents(PhaseTally.Snapshot s) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("sent", s.sent());
        g.put("success_205", s.success());
        g.put("service_unavailable_503", s.unavailable());
        g.put("other_code", s.otherCode());
        g.put("rst", s.rst());
        g.put("timeouts", s.timeouts());
        g.put("retransmissions", s.retransmissions());
        g.put("success_rate", s.successRate());
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", s.success() == 0 ? null : s.percentileUs(50));
        lat.put("p99", s.success() == 0 ? null : s.percentileUs(99));
        lat.put("max", s.success() == 0 ? null : s.maxUs());
        g.put("latency_us", lat);
        return g;
    }
}
