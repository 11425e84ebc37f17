package io.stagecoach.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart as inline SVG, no scripts, no external resources: linear or log₁₀ axes,
 * gridlines at "nice" ticks, one coloured polyline with point markers per series, a legend.
 * Points with a non-positive value on a log axis are skipped.
 */
final class SvgChart {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 30;
    private static final int BOTTOM = 45;

    record Series(String name, double[] x, double[] y) { }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final boolean logX;
    private final boolean logY;
    private final List<Series> series = new ArrayList<>();
    private DoubleFunction<String> xTickLabel = SvgChart::number;
    private double xTickStep;

    SvgChart(String title, String xLabel, String yLabel, boolean logX, boolean logY) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logX = logX;
        this.logY = logY;
    }

    SvgChart add(Series s) {
        series.add(s);
        return this;
    }

    /** Custom labels for x ticks (e.g. "99.9%" for the percentile axis). */
    SvgChart xTickLabel(DoubleFunction<String> f, double step) {
        this.xTickLabel = f;
        this.xTickStep = step;
        return this;
    }

    String render(int width, int height) {
        double[] xr = range(true);
        double[] yr = range(false);
        int pw = width - LEFT - RIGHT;
        int ph = height - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
                LEFT, esc(title)));
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>%n",
                LEFT, TOP, pw, ph));
        for (double t : ticks(xr, logX, xTickStep)) {
            double px = LEFT + pw * frac(t, xr, logX);
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    px, TOP, px, TOP + ph, px, TOP + ph + 14, esc(xTickLabel.apply(t))));
        }
        for (double t : ticks(yr, logY, 0)) {
            double py = TOP + ph * (1 - frac(t, yr, logY));
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT, py, LEFT + pw, py, LEFT - 4, py + 4, number(t)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + pw / 2, height - 8, esc(xLabel)));
        sb.append(String.format(Locale.ROOT, "<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>%n",
                TOP + ph / 2, esc(yLabel)));
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String color = COLORS[i % COLORS.length];
            StringBuilder pts = new StringBuilder();
            StringBuilder marks = new StringBuilder();
            for (int j = 0; j < s.x().length; j++) {
                if (!plottable(s.x()[j], logX) || !plottable(s.y()[j], logY)) {
                    continue;
                }
                double px = LEFT + pw * frac(s.x()[j], xr, logX);
                double py = TOP + ph * (1 - frac(s.y()[j], yr, logY));
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                marks.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>", px, py, color));
            }
            sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"%s\"/>%s%n",
                    color, pts.toString().trim(), marks));
            int ly = TOP + 10 + i * 16;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n",
                    LEFT + pw + 10, ly, LEFT + pw + 28, ly, color, LEFT + pw + 32, ly + 4, esc(s.name())));
        }
        return sb.append("</svg>\n").toString();
    }

    private double[] range(boolean xAxis) {
        boolean log = xAxis ? logX : logY;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            double[] v = xAxis ? s.x() : s.y();
            double[] other = xAxis ? s.y() : s.x();
            for (int i = 0; i < v.length; i++) {
                if (plottable(v[i], log) && plottable(other[i], xAxis ? logY : logX)) {
                    lo = Math.min(lo, v[i]);
                    hi = Math.max(hi, v[i]);
                }
            }
        }
        if (lo > hi) {
            return log ? new double[] {1, 10} : new double[] {0, 1};
        }
        if (log) {
            return new double[] {Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.max(Math.ceil(Math.log10(hi) - 1e-9), Math.floor(Math.log10(lo)) + 1))};
        }
        double lower = xAxis ? lo : Math.min(0, lo);
        double step = niceStep((hi - lower) / 5);
        return new double[] {Math.floor(lower / step) * step, Math.max(Math.ceil(hi / step) * step, lower + step)};
    }

    private static boolean plottable(double v, boolean log) {
        return Double.isFinite(v) && (!log || v > 0);
    }

    private static double frac(double v, double[] r, boolean log) {
        return log ? (Math.log10(v) - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]))
                : (v - r[0]) / (r[1] - r[0]);
    }

    private static List<Double> ticks(double[] r, boolean log, double fixedStep) {
        List<Double> out = new ArrayList<>();
        if (log) {
            for (double t = r[0]; t <= r[1] * 1.0001; t *= 10) {
                out.add(t);
            }
        } else {
            double step = fixedStep > 0 ? fixedStep : niceStep((r[1] - r[0]) / 5);
            for (double t = r[0]; t <= r[1] + step * 1e-6; t += step) {
                out.add(t);
            }
        }
        return out;
    }

    private static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double n = raw / mag;
        return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
    }

    static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return trim(v / 1e6) + "M";
        }
        if (a >= 1e3) {
            return trim(v / 1e3) + "k";
        }
        return trim(v);
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.2f", v);
        return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
