package io.stagecoach.bench.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * The server the flood scenario attacks, in a process of its own: either the plugtest server of
 * this build with its counters ({@link FloodTarget}) or any CoAP server started from a command
 * ({@link ExternalFloodTarget}, e.g. an older build, for a before/after comparison), which
 * reports no counters.
 */
interface FloodServer extends AutoCloseable {

    /** Where it listens (127.0.0.1). */
    InetSocketAddress address();

    /** What it is and how it was configured, for the report. */
    String description();

    /** Whether {@link #stats()} reports anything; an external server's maps are empty. */
    boolean hasStats();

    /** Its counters, gauges and heap, or an empty map when it has none. */
    Map<String, Long> stats() throws IOException;

    /** As {@link #stats()} after a full collection. */
    Map<String, Long> statsAfterGc() throws IOException;

    /** Resets the peak heap that {@code heap.peak} reports; nothing for a server without stats. */
    void resetPeak() throws IOException;

    boolean isAlive();

    /** The exit code once it has ended, else {@code null}. */
    Integer exitCode();

    /** Lines of its log (standard error, and standard output of an external server) containing {@code text}. */
    long logLines(String text) throws IOException;

    /** The last {@code n} lines of its log. */
    List<String> logTail(int n) throws IOException;

    @Override
    void close();
}
