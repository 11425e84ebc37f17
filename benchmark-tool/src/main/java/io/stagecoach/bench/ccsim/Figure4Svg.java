package io.stagecoach.bench.ccsim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A figure like Figure 4 of Järvinen et al.: unnecessary retransmissions per client as box plots
 * (box: 25th–75th percentile, line: median, whiskers: 10th–90th percentile), grouped by buffer,
 * one box per strategy, one panel per workload and client count.
 */
final class Figure4Svg {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#aec7e8", "#ff9896", "#2ca02c", "#98df8a"};
    private static final int BOX = 12;
    private static final int GAP = 4;
    private static final int GROUP_GAP = 24;
    private static final int PLOT_H = 220;
    private static final int LEFT = 56;
    private static final int TOP = 30;
    private static final int PANEL_H = TOP + PLOT_H + 50;

    private Figure4Svg() {
    }

    static String render(List<RunSummary> runs) {
        Map<String, List<RunSummary>> panels = new LinkedHashMap<>();
        for (RunSummary r : runs) {
            Scenario s = r.scenario();
            panels.computeIfAbsent(s.workload().cliName() + " clients, N = " + s.clients(), k -> new ArrayList<>()).add(r);
        }
        int strategies = Strategy.values().length;
        int groupW = strategies * (BOX + GAP) + GROUP_GAP;
        int maxGroups = panels.values().stream().mapToInt(p -> buffers(p).size()).max().orElse(1);
        int width = LEFT + maxGroups * groupW + 150;
        int height = panels.size() * PANEL_H + 10;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        int y0 = 0;
        for (Map.Entry<String, List<RunSummary>> panel : panels.entrySet()) {
            panel(sb, panel.getKey(), panel.getValue(), y0, groupW);
            y0 += PANEL_H;
        }
        int lx = LEFT + maxGroups * groupW + 10;
        for (Strategy s : Strategy.values()) {
            int ly = 40 + s.ordinal() * 18;
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"black\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, ly, COLORS[s.ordinal()], lx + 18, ly + 10, s.label()));
        }
        return sb.append("</svg>\n").toString();
    }

    private static void panel(StringBuilder sb, String title, List<RunSummary> runs, int y0, int groupW) {
        List<Long> buffers = buffers(runs);
        double top = niceCeiling(runs.stream().mapToDouble(r -> r.unnecessary().at(90)).max().orElse(1));
        int plotTop = y0 + TOP;
        int plotBottom = plotTop + PLOT_H;
        int plotRight = LEFT + buffers.size() * groupW;
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"13\">Unnecessary retransmissions"
                + " per client, %s</text>%n", LEFT, y0 + 18, title));
        for (int i = 0; i <= 4; i++) {
            double v = top * i / 4;
            int y = (int) Math.round(plotBottom - PLOT_H * i / 4.0);
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LEFT, y, plotRight, y, LEFT - 4, y + 4,
                    v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v)));
        }
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                LEFT, plotTop, LEFT, plotBottom));
        for (int g = 0; g < buffers.size(); g++) {
            long buffer = buffers.get(g);
            int gx = LEFT + g * groupW + GROUP_GAP / 2;
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d B</text>%n",
                    gx + (groupW - GROUP_GAP) / 2, plotBottom + 16, buffer));
            for (RunSummary r : runs) {
                if (r.scenario().bufferBytes() != buffer) {
                    continue;
                }
                int i = r.scenario().strategy().ordinal();
                int x = gx + i * (BOX + GAP);
                Percentiles u = r.unnecessary();
                double scale = PLOT_H / top;
                int yP10 = (int) Math.round(plotBottom - u.at(10) * scale);
                int yP25 = (int) Math.round(plotBottom - u.at(25) * scale);
                int yMed = (int) Math.round(plotBottom - u.at(50) * scale);
                int yP75 = (int) Math.round(plotBottom - u.at(75) * scale);
                int yP90 = (int) Math.round(plotBottom - u.at(90) * scale);
                int cx = x + BOX / 2;
                sb.append(String.format(Locale.ROOT, "<g><title>%s %d B: p10 %.1f, p25 %.1f, median %.1f, p75 %.1f, p90 %.1f</title>"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
                        + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"black\"/>"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/></g>%n",
                        r.scenario().strategy().label(), buffer, u.at(10), u.at(25), u.at(50), u.at(75), u.at(90),
                        cx, yP90, cx, yP10, x, yP75, BOX, Math.max(1, yP25 - yP75), COLORS[i], x, yMed, x + BOX, yMed));
            }
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">bottleneck buffer</text>%n",
                (LEFT + plotRight) / 2, plotBottom + 34));
    }

    private static List<Long> buffers(List<RunSummary> runs) {
        TreeSet<Long> set = new TreeSet<>();
        runs.forEach(r -> set.add(r.scenario().bufferBytes()));
        return new ArrayList<>(set);
    }

    /** 1, 2, 5 × 10^k at or above {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
