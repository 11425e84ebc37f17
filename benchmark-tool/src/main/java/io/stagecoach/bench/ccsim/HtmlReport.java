package io.stagecoach.bench.ccsim;

import java.util.List;
import java.util.Locale;

/** The {@code --html} output: the flow-completion and histogram tables and the figure, one file. */
final class HtmlReport {

    private HtmlReport() {
    }

    static String render(List<RunSummary> runs, String commandLine) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                + "<title>cc-sim: Is CoAP congestion safe?</title><style>table{border-collapse:collapse}"
                + "td,th{border:1px solid #999;padding:2px 6px;text-align:right}</style></head><body>\n"
                + "<h1>cc-sim</h1>\n<p>Simulation of Järvinen et al., \"Is CoAP Congestion Safe?\" (ANRW '18) with the"
                + " Stagecoach stacks. Options: <code>" + escape(commandLine) + "</code></p>\n");
        sb.append("<h2>Flow completion time (s), percentiles over clients × replications</h2>\n<table><tr>"
                + "<th>CC</th><th>workload</th><th>N</th><th>buffer</th><th>rep</th><th>min</th><th>10</th><th>25</th>"
                + "<th>median</th><th>75</th><th>90</th><th>max</th><th>failed exchanges</th></tr>\n");
        for (RunSummary r : runs) {
            Scenario s = r.scenario();
            Percentiles f = r.fct();
            sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td>"
                    + "<td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
                    + "<td>%d</td></tr>%n", s.strategy().label(), s.workload().cliName(), s.clients(), s.bufferBytes(),
                    r.replications(), f.min(), f.at(10), f.at(25), f.at(50), f.at(75), f.at(90), f.max(),
                    r.failedExchanges()));
        }
        sb.append("</table>\n<h2>Successful exchanges by number of retransmissions (0 = original only),"
                + " summed over replications</h2>\n<table><tr><th>CC</th><th>workload</th><th>N</th><th>buffer</th>");
        int cols = runs.stream().mapToInt(r -> r.trimmedHistogram().length).max().orElse(8);
        for (int i = 0; i < cols; i++) {
            sb.append("<th>").append(i).append("</th>");
        }
        sb.append("<th>unnecessary/client median</th><th>mean</th></tr>\n");
        for (RunSummary r : runs) {
            Scenario s = r.scenario();
            sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td>",
                    s.strategy().label(), s.workload().cliName(), s.clients(), s.bufferBytes()));
            long[] h = r.trimmedHistogram();
            for (int i = 0; i < cols; i++) {
                sb.append("<td>").append(i < h.length ? h[i] : 0).append("</td>");
            }
            sb.append(String.format(Locale.ROOT, "<td>%.1f</td><td>%.2f</td></tr>%n", r.unnecessary().at(50),
                    r.unnecessary().mean()));
        }
        sb.append("</table>\n<h2>Unnecessary retransmissions per client</h2>\n");
        sb.append(Figure4Svg.render(runs));
        return sb.append("</body></html>\n").toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
