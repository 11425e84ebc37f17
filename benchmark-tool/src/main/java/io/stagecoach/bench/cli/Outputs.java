package io.stagecoach.bench.cli;

import io.stagecoach.bench.report.BenchReport;
import io.stagecoach.bench.report.HtmlReport;
import io.stagecoach.bench.report.TextTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes a finished report where the options ask: table on stdout, --json, --csv, --html. */
public final class Outputs {

    private Outputs() {
    }

    public static void write(BenchReport report, BenchOptions o, PrintStream stdout) throws IOException {
        stdout.print(TextTable.render(report.steps()));
        stdout.flush();
        if (o.json() != null) {
            write(o.json(), report.toJson());
        }
        if (o.csv() != null) {
            write(o.csv(), report.toCsv());
        }
        if (o.html() != null) {
            write(o.html(), HtmlReport.render("CoAPBench: " + report.name(), List.of(report)));
        }
    }

    public static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
