package io.stagecoach.bench.beyond;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run of a C tool ({@code coap-observe}, {@code coap-block}) printed: its
 * {@code result key=value ...} line as a map, in the printed order, and every line as printed.
 */
public record ToolResult(Map<String, String> result, List<String> lines) {

    public ToolResult {
        result = Map.copyOf(result);
        lines = List.copyOf(lines);
    }

    /**
     * Reads a tool's output.
     *
     * @throws IOException when it printed no {@code result} line (the tool failed)
     */
    public static ToolResult parse(String out) throws IOException {
        Map<String, String> result = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>();
        boolean found = false;
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            lines.add(line);
            String[] f = line.trim().split(" ");
            if (f[0].equals("result")) {
                found = true;
                for (int i = 1; i < f.length; i++) {
                    int eq = f[i].indexOf('=');
                    if (eq > 0) {
                        result.put(f[i].substring(0, eq), f[i].substring(eq + 1));
                    }
                }
            }
        }
        if (!found) {
            throw new IOException("the tool printed no result line: " + out.strip());
        }
        return new ToolResult(result, lines);
    }

    /** The value of {@code key}, or {@code "-"} when the tool did not print it. */
    public String get(String key) {
        return result.getOrDefault(key, "-");
    }

    /** The value of {@code key} as a number. */
    public double number(String key) {
        String v = result.get(key);
        if (v == null) {
            throw new IllegalArgumentException("no " + key + " in the tool's result");
        }
        return Double.parseDouble(v);
    }
}
