package io.stagecoach.bench.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A flood target that runs as a process of its own and logs to a file: liveness and the log. */
abstract class ProcessFloodServer implements FloodServer {

    protected final Process process;
    protected final Path log;

    ProcessFloodServer(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    @Override
    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public Integer exitCode() {
        return process.isAlive() ? null : Integer.valueOf(process.exitValue());
    }

    @Override
    public long logLines(String text) throws IOException {
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(text)).count();
        }
    }

    @Override
    public List<String> logTail(int n) throws IOException {
        List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
        return all.subList(Math.max(0, all.size() - n), all.size());
    }
}
