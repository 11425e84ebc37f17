package io.stagecoach.bench.report;

import io.stagecoach.bench.load.StepListener;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * {@code --hlog DIR}: one HdrHistogram interval log per step ({@code step-01-c10.hlog}), one
 * interval per second of the measured window, latencies in µs. Read them with HdrHistogram's
 * {@code HistogramLogProcessor} or plot them with HdrHistogram's online log analyzer.
 */
public final class HlogOutput implements StepListener, AutoCloseable {

    private final Path dir;
    private PrintStream stream;
    private HistogramLogWriter writer;
    private long baseEpochMs;

    public HlogOutput(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    /** Starts the log of step {@code step} (1-based). */
    public void beginStep(int step, int concurrency) throws IOException {
        close();
        Path file = dir.resolve(String.format("step-%02d-c%d.hlog", step, concurrency));
        stream = new PrintStream(new FileOutputStream(file.toFile()), false, "US-ASCII");
        writer = new HistogramLogWriter(stream);
        baseEpochMs = System.currentTimeMillis();
        writer.outputLogFormatVersion();
        writer.outputComment("CoAPBench step " + step + ", " + concurrency + " virtual clients, latency in microseconds");
        writer.outputStartTime(baseEpochMs);
        writer.setBaseTime(baseEpochMs);
        writer.outputLegend();
    }

    /** Writes a whole step's histogram as one interval (used by the master, which has no per-second data). */
    public void writeWhole(Histogram h, long startEpochMs, long endEpochMs) {
        onInterval(0, startEpochMs, endEpochMs, h);
    }

    @Override
    public void onInterval(int concurrency, long startEpochMs, long endEpochMs, Histogram interval) {
        if (writer == null) {
            return;
        }
        interval.setStartTimeStamp(startEpochMs);
        interval.setEndTimeStamp(endEpochMs);
        writer.outputIntervalHistogram(interval);
    }

    @Override
    public void close() {
        if (stream != null) {
            stream.close();
            stream = null;
            writer = null;
        }
    }
}
