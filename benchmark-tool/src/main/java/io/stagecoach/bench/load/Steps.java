package io.stagecoach.bench.load;

import java.util.ArrayList;
import java.util.List;

/**
 * The concurrency levels of a run, parsed from the {@code --concurrency} argument:
 * <ul>
 *   <li>a list {@code 10,100,1000}, run in the order given;
 *   <li>{@code FROM:TO} — exponential by ×10 (the papers' 10 → 10,000: 10, 100, 1000, 10000);
 *   <li>{@code FROM:TO:xF} — exponential by factor F ({@code 10:10000:x2} doubles: 10, 20, 40,
 *       … 5120, then 10000);
 *   <li>{@code FROM:TO:+S} — linear steps of S (Lanter §6.4 used 10:200:+10).
 * </ul>
 * In the ranged forms {@code TO} is always the last step, even when the progression overshoots.
 */
public final class Steps {

    private static final int MAX_STEPS = 1_000;

    private Steps() {
    }

    /** The levels, each >= 1; IllegalArgumentException naming the bad part otherwise. */
    public static List<Integer> parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty concurrency list");
        }
        if (t.contains(":")) {
            return range(t);
        }
        List<Integer> out = new ArrayList<>();
        for (String part : t.split(",")) {
            out.add(positive(part, text));
        }
        return List.copyOf(out);
    }

    private static List<Integer> range(String t) {
        String[] p = t.split(":");
        if (p.length < 2 || p.length > 3) {
            throw new IllegalArgumentException("concurrency range must be FROM:TO[:xF|:+S], got '" + t + "'");
        }
        int from = positive(p[0], t);
        int to = positive(p[1], t);
        if (to < from) {
            throw new IllegalArgumentException("concurrency range ends below its start: '" + t + "'");
        }
        boolean linear = false;
        double factor = 10;
        int step = 0;
        if (p.length == 3) {
            String s = p[2].trim();
            if (s.startsWith("x")) {
                factor = parseDouble(s.substring(1), t);
                if (!(factor > 1)) {
                    throw new IllegalArgumentException("factor must be > 1 in '" + t + "'");
                }
            } else if (s.startsWith("+")) {
                linear = true;
                step = positive(s.substring(1), t);
            } else {
                throw new IllegalArgumentException("third part must be xF (factor) or +S (step) in '" + t + "'");
            }
        }
        List<Integer> out = new ArrayList<>();
        double v = from;
        while (v < to) {
            int level = (int) Math.round(v);
            if (out.isEmpty() || out.get(out.size() - 1) != level) {
                out.add(level);
            }
            if (out.size() > MAX_STEPS) {
                throw new IllegalArgumentException("more than " + MAX_STEPS + " steps in '" + t + "'");
            }
            v = linear ? v + step : v * factor;
        }
        out.add(to);
        return List.copyOf(out);
    }

    private static int positive(String s, String whole) {
        try {
            int v = Integer.parseInt(s.trim());
            if (v < 1) {
                throw new IllegalArgumentException("concurrency must be >= 1, got " + v + " in '" + whole + "'");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: '" + s + "' in '" + whole + "'", e);
        }
    }

    private static double parseDouble(String s, String whole) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: '" + s + "' in '" + whole + "'", e);
        }
    }

    /** Splits {@code total} clients over {@code parts} slaves as evenly as possible (first ones get the rest). */
    public static int[] split(int total, int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1");
        }
        int[] out = new int[parts];
        for (int i = 0; i < parts; i++) {
            out[i] = total / parts + (i < total % parts ? 1 : 0);
        }
        return out;
    }
}
