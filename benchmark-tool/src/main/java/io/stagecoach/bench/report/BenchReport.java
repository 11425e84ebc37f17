package io.stagecoach.bench.report;

import io.stagecoach.bench.load.StepResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The outcome of one benchmark run against one target: the command line, the machine and one
 * {@link StepResult} per concurrency level. Renders itself as JSON:
 * {@code {"command", "machine", "steps": [{"concurrency", "duration_s", "throughput_rps",
 * "completed", "timeouts", "retransmissions", "errors", "latency_us": {"min", "p50", "p90", "p95",
 * "p99", "p999", "max"}, "cpu": {"server_s", "generator_s", "server_us_per_request",
 * "generator_us_per_request"}}]}}; latencies are {@code null} for a step in which nothing completed;
 * {@code retransmissions} is 0 unless {@code --retransmit} was given; {@code cpu} only when the
 * generator measured it (the C generator).
 */
public record BenchReport(String name, String command, Map<String, Object> machine, List<StepResult> steps) {

    /** Percentiles reported for every step, with their JSON/CSV keys. */
    public static final double[] PERCENTILES = {50, 90, 95, 99, 99.9};
    public static final String[] PERCENTILE_KEYS = {"p50", "p90", "p95", "p99", "p999"};

    public BenchReport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(command, "command");
        machine = Map.copyOf(machine);
        steps = List.copyOf(steps);
    }

    public Map<String, Object> toJsonTree() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("command", command);
        root.put("machine", new LinkedHashMap<>(new TreeMap<>(machine)));
        List<Object> list = new ArrayList<>();
        for (StepResult s : steps) {
            list.add(stepTree(s));
        }
        root.put("steps", list);
        return root;
    }

    static Map<String, Object> stepTree(StepResult s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("concurrency", s.concurrency());
        m.put("duration_s", s.durationS());
        m.put("throughput_rps", s.throughputRps());
        m.put("completed", s.completed());
        m.put("timeouts", s.timeouts());
        m.put("retransmissions", s.retransmissions());
        m.put("errors", s.errors());
        Map<String, Object> lat = new LinkedHashMap<>();
        boolean none = s.completed() == 0;
        lat.put("min", none ? null : s.minUs());
        for (int i = 0; i < PERCENTILES.length; i++) {
            lat.put(PERCENTILE_KEYS[i], none ? null : s.percentileUs(PERCENTILES[i]));
        }
        lat.put("max", none ? null : s.maxUs());
        m.put("latency_us", lat);
        if (s.cpu() != null) {
            Map<String, Object> cpu = new LinkedHashMap<>();
            cpu.put("server_s", s.cpu().serverSeconds() < 0 ? null : s.cpu().serverSeconds());
            cpu.put("generator_s", s.cpu().generatorSeconds());
            double server = s.cpu().serverMicrosPerRequest(s.completed());
            cpu.put("server_us_per_request", server < 0 ? null : server);
            double generator = s.cpu().generatorMicrosPerRequest(s.completed());
            cpu.put("generator_us_per_request", generator < 0 ? null : generator);
            m.put("cpu", cpu);
        }
        return m;
    }

    public String toJson() {
        return JsonWriter.write(toJsonTree());
    }

    /** Any tree of maps, lists, strings and numbers as JSON text (for compare mode's document). */
    public static String json(Object tree) {
        return JsonWriter.write(tree);
    }

    /** CSV with a header line; latencies in µs, empty when nothing completed. */
    public String toCsv() {
        StringBuilder sb = new StringBuilder("concurrency,duration_s,throughput_rps,completed,timeouts,errors,min_us");
        for (String k : PERCENTILE_KEYS) {
            sb.append(',').append(k).append("_us");
        }
        sb.append(",max_us,retransmissions\n");
        for (StepResult s : steps) {
            boolean none = s.completed() == 0;
            sb.append(s.concurrency()).append(',').append(String.format(Locale.ROOT, "%.3f", s.durationS()))
                    .append(',').append(String.format(Locale.ROOT, "%.1f", s.throughputRps()))
                    .append(',').append(s.completed()).append(',').append(s.timeouts()).append(',').append(s.errors())
                    .append(',').append(none ? "" : s.minUs());
            for (double p : PERCENTILES) {
                sb.append(',').append(none ? "" : s.percentileUs(p));
            }
            sb.append(',').append(none ? "" : s.maxUs()).append(',').append(s.retransmissions()).append('\n');
        }
        return sb.toString();
    }
}
