package io.stagecoach.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * {@code ./stagecoach server}: the plugtest server in the foreground. Prints exactly one line,
 * {@code listening on coap://ADDR:PORT (connector ...)}, to {@code out} once bound; logs go to
 * stderr (logback). SIGINT and SIGTERM stop it cleanly and the command returns 0.
 *
 * <p>Why {@code sun.misc.Signal}: with only a shutdown hook the JVM exits with 128+signal
 * (143 for SIGTERM); handling the two signals lets the main thread shut down and exit 0. A
 * shutdown hook still destroys the server on any other way out (SIGHUP, System.exit elsewhere).
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
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(runner::close, "stagecoach-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        out.println(runner.readyLine());
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("signal received, stopping");
        runner.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook runs anyway; close() is idempotent
        }
        return 0;
    }
}
