package io.stagecoach.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.testutil.Json;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BenchReportTest {

    private static BenchReport sample() {
        Histogram h = new Histogram(1, 20_000_000, 3);
        for (int v = 1; v <= 1000; v++) {
            h.recordValue(v * 10L);
        }
        StepResult full = StepResult.of(100, 2.0, 3, 4, h).withRetransmissions(7);
        StepResult empty = StepResult.of(1000, 2.0, 50, 0, new Histogram(1, 20_000_000, 3));
        return new BenchReport("target", "stagecoach bench --concurrency \"100,1000\"",
                MachineInfo.collect(), List.of(full, empty));
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasExactlyTheShapeOfIssue8() {
        Map<String, Object> root = Json.parseObject(sample().toJson());
        assertEquals(List.of("command", "machine", "steps"), List.copyOf(root.keySet()));
        assertEquals("stagecoach bench --concurrency \"100,1000\"", root.get("command"));
        Map<String, Object> machine = (Map<String, Object>) root.get("machine");
        assertEquals((long) Runtime.getRuntime().availableProcessors(), machine.get("cores"));

        List<Object> steps = (List<Object>) root.get("steps");
        assertEquals(2, steps.size());
        Map<String, Object> s = (Map<String, Object>) steps.get(0);
        assertEquals(List.of("concurrency", "duration_s", "throughput_rps", "completed", "timeouts",
                "retransmissions", "errors", "latency_us"), List.copyOf(s.keySet()));
        assertEquals(7L, s.get("retransmissions"));
        assertEquals(100L, s.get("concurrency"));
        assertEquals(1000L, s.get("completed"));
        assertEquals(500.0, ((Number) s.get("throughput_rps")).doubleValue(), 1e-9);
        assertEquals(3L, s.get("timeouts"));
        assertEquals(4L, s.get("errors"));
        Map<String, Object> lat = (Map<String, Object>) s.get("latency_us");
        assertEquals(List.of("min", "p50", "p90", "p95", "p99", "p999", "max"), List.copyOf(lat.keySet()));
        assertEquals(10L, lat.get("min"));
        // 1000 values 10..10000 µs: p50 is the 500th (5000 µs) within 3 significant digits.
        assertEquals(5000.0, ((Number) lat.get("p50")).doubleValue(), 5.0);
        assertEquals(10000.0, ((Number) lat.get("max")).doubleValue(), 10.0);

        Map<String, Object> empty = (Map<String, Object>) steps.get(1);
        assertEquals(0L, empty.get("completed"));
        assertNull(((Map<String, Object>) empty.get("latency_us")).get("p99"), "no completion, no latency");
    }

    @Test
    @SuppressWarnings("unchecked")
    void cpuTimesAppearOnlyWhenMeasured() {
        Histogram h = new Histogram(1, 20_000_000, 3);
        h.recordValueWithCount(100, 2000);
        StepResult measured = StepResult.of(10, 1.0, 0, 0, h).withCpu(new StepResult.CpuTime(0.5, -1));
        BenchReport r = new BenchReport("t", "c", MachineInfo.collect(), List.of(measured));
        Map<String, Object> step = (Map<String, Object>) ((List<Object>) Json.parseObject(r.toJson()).get("steps")).get(0);
        Map<String, Object> cpu = (Map<String, Object>) step.get("cpu");
        assertEquals(0.5, ((Number) cpu.get("server_s")).doubleValue(), 1e-12);
        assertEquals(250.0, ((Number) cpu.get("server_us_per_request")).doubleValue(), 1e-9);
        assertNull(cpu.get("generator_us_per_request"), "a negative time means not measured");
        assertTrue(TextTable.render(r.steps()).contains("cpu at 10 clients: server 250.00, generator - µs per request"));

        Map<String, Object> plain = (Map<String, Object>) ((List<Object>) Json.parseObject(sample().toJson())
                .get("steps")).get(0);
        assertTrue(!plain.containsKey("cpu"), "the Java generator measures no CPU");
    }

    @Test
    void csvHasAHeaderAndOneRowPerStep() {
        String[] lines = sample().toCsv().split("\n");
        assertEquals(3, lines.length);
        assertEquals("concurrency,duration_s,throughput_rps,completed,timeouts,errors,min_us,p50_us,p90_us,"
                + "p95_us,p99_us,p999_us,max_us,retransmissions", lines[0]);
        assertTrue(lines[1].startsWith("100,2.000,500.0,1000,3,4,10,"), lines[1]);
        assertTrue(lines[1].endsWith(",7"), "7 retransmissions last: " + lines[1]);
        assertEquals("1000,2.000,0.0,0,50,0,,,,,,,,0", lines[2]);
    }

    @Test
    void htmlIsSelfContainedWithThreeKindsOfChart() {
        String html = HtmlReport.render("CoAPBench", List.of(sample()));
        assertTrue(html.contains("Throughput vs concurrency"));
        assertTrue(html.contains("Latency percentiles vs concurrency"));
        assertTrue(html.contains("Latency by percentile, per step"));
        assertEquals(3, html.split("<svg ", -1).length - 1, "three inline SVG charts");
        assertTrue(!html.contains("<script") && !html.contains("src="), "no scripts, no external resources");
        assertTrue(html.contains("&quot;100,1000&quot;"), "command is escaped");
    }

    @Test
    void ninesAxisLabels() {
        assertEquals("0%", HtmlReport.ninesLabel(0));
        assertEquals("90%", HtmlReport.ninesLabel(1));
        assertEquals("99%", HtmlReport.ninesLabel(2));
        assertEquals("99.9%", HtmlReport.ninesLabel(3));
    }
}
