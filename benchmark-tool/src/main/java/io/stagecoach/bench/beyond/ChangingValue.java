package io.stagecoach.bench.beyond;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The state of the observe fan-out resource ({@code /obs}) that every compared server serves: the
 * text {@code "SEQ NANOS"}, the change's sequence number and {@link System#nanoTime()} taken right
 * before the server is told of the change. The observer tool {@code coap-observe} reads
 * CLOCK_MONOTONIC, the clock behind {@code nanoTime} on Linux, so on the same host it measures
 * the time from {@code changed()} to each notification's arrival without a clock offset.
 *
 * <p>{@link #start} changes the value at a fixed period on a thread of its own and then runs the
 * server's notify action ({@code changed()}); {@link #close} stops that thread.
 */
public final class ChangingValue implements AutoCloseable {

    private volatile String text = "0 " + System.nanoTime();
    private long seq;
    private ScheduledExecutorService timer;

    /** The current representation. */
    public String text() {
        return text;
    }

    /** The current representation as UTF-8 bytes. */
    public byte[] bytes() {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Advances to the next value, stamped now; called on the timer thread only. */
    void next() {
        seq++;
        text = seq + " " + System.nanoTime();
    }

    /**
     * Changes the value every {@code periodMs} and then runs {@code changed}.
     *
     * @throws IllegalArgumentException when the period is not positive
     * @throws IllegalStateException    when already started
     */
    public synchronized void start(long periodMs, Runnable changed) {
        if (periodMs <= 0) {
            throw new IllegalArgumentException("the observe period must be positive, got " + periodMs + " ms");
        }
        if (timer != null) {
            throw new IllegalStateException("already started");
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-observe-changes");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            next();
            changed.run();
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /** {@code size} bytes of a fixed pattern: the block-wise resource ({@code /large}) of every compared server. */
    public static byte[] largeBody(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }
}
