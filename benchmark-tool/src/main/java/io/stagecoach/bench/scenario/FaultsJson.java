package io.stagecoach.bench.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** The JSON report of {@link FaultsResult}: the warm-up, each round with its order, the medians, the counts. */
final class FaultsJson {

    private FaultsJson() {
    }

    static Map<String, Object> map(FaultsResult r, String command, Map<String, Object> machine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        m.put("machine", machine);
        m.put("target", r.target());
        m.put("rate", r.rate());
        m.put("kinds", new ArrayList<>(new TreeSet<>(r.kinds())).stream().map(Enum::name).toList());
        m.put("warmup", ScenarioReport.stepJson(r.warmup()));
        List<Object> rounds = new ArrayList<>();
        for (FaultsRound x : r.rounds()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("round", x.number());
            e.put("order", x.faultyFirst() ? List.of("faults", "no_faults") : List.of("no_faults", "faults"));
            e.put("no_faults", ScenarioReport.stepJson(x.clean()));
            e.put("faults", ScenarioReport.stepJson(x.faulty()));
            e.put("ratio", x.ratio());
            rounds.add(e);
        }
        m.put("rounds", rounds);
        Map<String, Object> med = new LinkedHashMap<>();
        med.put("no_faults", r.cleanMedianRps());
        med.put("faults", r.faultyMedianRps());
        med.put("ratio", r.cleanMedianRps() > 0 ? r.faultyMedianRps() / r.cleanMedianRps() : 0.0);
        m.put("median_throughput_rps", med);
        Map<String, Object> inj = new LinkedHashMap<>();
        r.injected().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> inj.put(e.getKey().name(), e.getValue()));
        m.put("injected", inj);
        Map<String, Object> srv = new LinkedHashMap<>();
        srv.put("receiver_restarts", r.server().receiverRestarts());
        srv.put("handler_errors", r.server().handlerErrors());
        srv.put("stack_errors", r.server().stackErrors());
        srv.put("executor_rejections", r.server().rejected());
        m.put("server", srv);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("open_at_stop", r.drain().atStop());
        d.put("open_after_wait", r.drain().remaining());
        d.put("wait_ms", r.drain().millis());
        d.put("limit_ms", r.drain().limitMillis());
        m.put("drain", d);
        m.put("threads_left", r.threadsLeft());
        m.put("verdicts", ScenarioReport.verdictsJson(r.verdicts()));
        m.put("passed", r.passed());
        return m;
    }
}
