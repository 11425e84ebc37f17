package io.stagecoach.bench.report;

import io.stagecoach.bench.load.StepResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * {@code --html FILE}: one self-contained page (inline CSS and SVG, no scripts) with
 * throughput vs concurrency, latency percentiles vs concurrency on a log scale, the latency
 * percentile distribution of every step, and the per-step table. Several reports (compare
 * mode) are overlaid in the first two charts.
 */
public final class HtmlReport {

    private static final int W = 860;
    private static final int H = 380;

    private HtmlReport() {
    }

    public static String render(String title, List<BenchReport> reports) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
                .append(SvgChart.esc(title)).append("</title>\n<style>body{font-family:sans-serif;margin:24px}"
                        + "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #bbb;padding:3px 7px;"
                        + "text-align:right}code{background:#f3f3f3}</style></head><body>\n");
        sb.append("<h1>").append(SvgChart.esc(title)).append("</h1>\n");
        for (BenchReport r : reports) {
            sb.append("<p><b>").append(SvgChart.esc(r.name())).append("</b>: <code>")
                    .append(SvgChart.esc(r.command())).append("</code></p>\n");
        }
        sb.append(machine(reports.get(0).machine()));
        sb.append(throughput(reports).render(W, H));
        sb.append(latency(reports).render(W, H + 60));
        for (BenchReport r : reports) {
            sb.append("<h2>").append(SvgChart.esc(r.name())).append("</h2>\n");
            sb.append(distribution(r).render(W, H));
            sb.append(table(r.steps()));
        }
        return sb.append("</body></html>\n").toString();
    }

    private static SvgChart throughput(List<BenchReport> reports) {
        SvgChart c = new SvgChart("Throughput vs concurrency", "virtual clients (log)", "answers per second", true, false);
        for (BenchReport r : reports) {
            List<StepResult> s = r.steps();
            double[] x = new double[s.size()];
            double[] y = new double[s.size()];
            for (int i = 0; i < s.size(); i++) {
                x[i] = s.get(i).concurrency();
                y[i] = s.get(i).throughputRps();
            }
            c.add(new SvgChart.Series(r.name(), x, y));
        }
        return c;
    }

    private static SvgChart latency(List<BenchReport> reports) {
        SvgChart c = new SvgChart("Latency percentiles vs concurrency", "virtual clients (log)", "round trip µs (log)", true, true);
        boolean single = reports.size() == 1;
        double[] pcts = single ? BenchReport.PERCENTILES : new double[] {50, 99};
        String[] keys = single ? BenchReport.PERCENTILE_KEYS : new String[] {"p50", "p99"};
        for (BenchReport r : reports) {
            List<StepResult> s = r.steps();
            for (int p = 0; p < pcts.length; p++) {
                double[] x = new double[s.size()];
                double[] y = new double[s.size()];
                for (int i = 0; i < s.size(); i++) {
                    x[i] = s.get(i).concurrency();
                    y[i] = s.get(i).percentileUs(pcts[p]);
                }
                c.add(new SvgChart.Series(single ? keys[p] : r.name() + " " + keys[p], x, y));
            }
        }
        return c;
    }

    /** x = number of nines, −log₁₀(1 − p): 0 → 0 %, 1 → 90 %, 2 → 99 %, 3 → 99.9 %. */
    private static SvgChart distribution(BenchReport r) {
        SvgChart c = new SvgChart("Latency by percentile, per step", "percentile", "round trip µs (log)", false, true)
                .xTickLabel(HtmlReport::ninesLabel, 1);
        for (StepResult s : r.steps()) {
            if (s.completed() == 0) {
                continue;
            }
            List<double[]> pts = new ArrayList<>();
            Histogram h = s.latencyUs();
            for (HistogramIterationValue v : h.percentiles(5)) {
                double p = v.getPercentileLevelIteratedTo();
                if (p >= 100) {
                    break;
                }
                pts.add(new double[] {-Math.log10(1 - p / 100), h.highestEquivalentValue(v.getValueIteratedTo())});
            }
            pts.add(new double[] {Math.min(6, pts.isEmpty() ? 1 : pts.get(pts.size() - 1)[0] + 0.5), s.maxUs()});
            double[] x = new double[pts.size()];
            double[] y = new double[pts.size()];
            for (int i = 0; i < pts.size(); i++) {
                x[i] = pts.get(i)[0];
                y[i] = pts.get(i)[1];
            }
            c.add(new SvgChart.Series(s.concurrency() + " clients", x, y));
        }
        return c;
    }

    static String ninesLabel(double nines) {
        double p = 100 * (1 - Math.pow(10, -nines));
        return String.format(Locale.ROOT, nines < 1.5 ? "%.0f%%" : "%." + (int) Math.round(nines - 2) + "f%%", p);
    }

    private static String table(List<StepResult> steps) {
        StringBuilder sb = new StringBuilder("<table><tr><th>clients</th><th>secs</th><th>req/s</th><th>completed</th>"
                + "<th>timeouts</th><th>errors</th><th>min µs</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th>"
                + "<th>p99.9</th><th>max</th></tr>\n");
        for (StepResult s : steps) {
            sb.append(String.format(Locale.ROOT, "<tr><td>%d</td><td>%.1f</td><td>%.0f</td><td>%d</td><td>%d</td><td>%d</td>",
                    s.concurrency(), s.durationS(), s.throughputRps(), s.completed(), s.timeouts(), s.errors()));
            sb.append(cell(s.minUs()));
            for (double p : BenchReport.PERCENTILES) {
                sb.append(cell(s.percentileUs(p)));
            }
            sb.append(cell(s.maxUs())).append("</tr>\n");
        }
        return sb.append("</table>\n").toString();
    }

    private static String cell(long v) {
        return "<td>" + (v < 0 ? "-" : Long.toString(v)) + "</td>";
    }

    private static String machine(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder("<p>");
        new TreeMap<>(m).forEach((k, v) -> sb.append(SvgChart.esc(k)).append(": ")
                .append(SvgChart.esc(String.valueOf(v))).append("; "));
        return sb.append("</p>\n").toString();
    }
}
