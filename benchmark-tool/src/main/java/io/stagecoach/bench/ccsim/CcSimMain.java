package io.stagecoach.bench.ccsim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./stagecoach cc-sim}: runs the grid of scenarios, prints a summary table and writes the
 * requested reports. See {@link CcSimOptions#USAGE}.
 */
public final class CcSimMain {

    private CcSimMain() {
    }

    /** @param args the options, without the word "cc-sim" */
    public static void main(String[] args) {
        CcSimOptions options;
        try {
            options = CcSimOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("cc-sim: " + e.getMessage());
            System.err.print(CcSimOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(CcSimOptions.USAGE);
            return;
        }
        try {
            run(options, System.out, System.err);
        } catch (IOException e) {
            System.err.println("cc-sim: cannot write a report: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Runs every cell of the grid; returns one summary per cell. */
    static List<RunSummary> run(CcSimOptions options, PrintStream out, PrintStream progress) throws IOException {
        long t0 = System.nanoTime();
        List<RunSummary> runs = new ArrayList<>();
        for (Scenario s : options.scenarios()) {
            long c0 = System.nanoTime();
            List<ReplicationResult> results = new ArrayList<>();
            for (int r = 0; r < options.replications(); r++) {
                results.add(Replication.run(s, options.seed() + r));
            }
            RunSummary summary = RunSummary.of(s, results);
            runs.add(summary);
            progress.printf(Locale.ROOT, "cc-sim: %-11s %-10s %4d clients %8d B  x%d  median FCT %8.1f s  "
                    + "unnecessary/client median %6.1f  (%.1f s wall)%n", s.strategy().cliName(),
                    s.workload().cliName(), s.clients(), s.bufferBytes(), options.replications(),
                    summary.fct().at(50), summary.unnecessary().at(50), (System.nanoTime() - c0) / 1e9);
        }
        out.print(TextReport.render(runs));
        out.printf(Locale.ROOT, "cc-sim: %d runs in %.1f s wall%n", runs.size(), (System.nanoTime() - t0) / 1e9);
        if (options.json() != null) {
            write(options.json(), JsonReport.render(runs));
        }
        if (options.svg() != null) {
            write(options.svg(), Figure4Svg.render(runs));
        }
        if (options.html() != null) {
            write(options.html(), HtmlReport.render(runs, options.commandLine()));
        }
        return runs;
    }

    private static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
