package io.stagecoach.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./stagecoach server}: the plugtest server in the foreground. Prints the line
 * {@code listening on coap://ADDR:PORT (connector ...)} to {@code out} once bound, then one line
 * {@code listening on coaps://ADDR:PORT} (coap+tcp, coaps+tcp, coap+ws) per further transport asked
 * for, and with coap+ws {@code explorer at http://ADDR:PORT/} (the page of docs/explorer.md); logs
 * go to stderr (logback). SIGINT and SIGTERM stop it cleanly and the command returns 0.
 *
 * <p>With {@code --drain SECONDS} the shutdown hook first drains the server (new requests 5.03,
 * observers told 5.03 with Max-Age, what is in flight finished; at most SECONDS), as a node leaving
 * a cluster does (docs/cluster.md).
 *
 * <p>The shutdown hook destroys the server and halts with status 0: a JVM ended by a signal
 * otherwise exits with 128 + the signal number (143 for SIGTERM). Runs until a signal, so only
 * the launcher calls it; tests start the server through {@code PlugtestServerRunner}.
 */
public final class ServerCommand {

    private static final Logger LOG = LoggerFactory.getLogger(ServerCommand.class);

    private ServerCommand() {
    }

    /** Runs until SIGINT/SIGTERM; returns the exit status (0, or 2 for bad options or a failed start). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ServerOptions options;
        try {
            options = ServerOptions.parse(args);
        } catch (UsageException e) {
            err.println("stagecoach server: " + e.getMessage());
            return 2;
        }
        if (options.help) {
            out.print(ServerOptions.usage());
            return 0;
        }
        PlugtestServerRunner runner;
        try {
            runner = PlugtestServerRunner.start(options);
        } catch (IOException | UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            err.println("stagecoach server: cannot start: " + e.getMessage());
            return 2;
        }
        // SIGINT/SIGTERM start the JVM's shutdown, which runs this hook: stop everything, then
        // halt with 0 (the JVM would otherwise exit with 128 + the signal number, e.g. 143).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (options.drain.isZero()) {
                LOG.info("signal received, stopping");
            } else {
                // a node asked to leave (docs/cluster.md): drain first, within --drain
                LOG.info("signal received, draining for at most {} ms, then stopping", options.drain.toMillis());
                boolean complete = runner.drain(options.drain);
                LOG.info(complete ? "drained, stopping" : "drain cut short at --drain, stopping");
            }
            runner.close();
            out.flush();
            err.flush();
            Runtime.getRuntime().halt(0);
        }, "stagecoach-server-shutdown"));
        tenureStartupObjects();
        runner.readyLines().forEach(out::println);
        out.flush();
        try {
            new CountDownLatch(1).await(); // the main thread has nothing more to do: the hook ends the process
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        runner.close();
        return 0;
    }

    /**
     * One full collection once the server is up and before it reports ready, so that what lives
     * as long as the process (the loaded configuration, resource tree, connector state, logging,
     * the JDK's own start-up objects: ~5.5 MB here) moves to the old generation now. Left in the
     * young generation, it is copied from survivor space to survivor space by every young
     * collection under load until it reaches the tenuring age (15 collections with the Serial
     * collector a JVM on one CPU uses, ~15 s at full load), which made those pauses 6-16 ms
     * instead of under 1 ms (docs/benchmarks/physical-limit.md, "The c=1000 tail, found").
     * Costs one pause of some 30 ms before the first request; {@code -XX:+DisableExplicitGC}
     * turns it off.
     */
    private static void tenureStartupObjects() {
        System.gc();
    }
}
