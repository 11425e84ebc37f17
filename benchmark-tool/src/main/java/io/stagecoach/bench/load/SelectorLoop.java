package io.stagecoach.bench.load;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * What the UDP and the TCP event loop share: the loop itself ({@link #runLoop}), the phase the
 * controller sets ({@link #drain}, {@link #stop}) and the selector wake-up that makes them seen
 * at once, the histogram and the counters it reads, and the failure that ended the loop.
 */
abstract class SelectorLoop implements LoadLoop {

    static final int RUN = 0;
    static final int DRAIN = 1;
    static final int STOP = 2;

    final SingleWriterRecorder recorder;
    final LoopCounters counters = new LoopCounters();
    volatile int phase = RUN;
    volatile long drainDeadline;
    volatile Selector selector;
    volatile Throwable failure;

    /** @param highestMicros the largest round-trip time the histogram records */
    SelectorLoop(long highestMicros) {
        this.recorder = new SingleWriterRecorder(1, highestMicros, 3);
    }

    /**
     * Registers every client's channel with {@code sel}, starts the clients spread evenly over
     * {@code rampNanos} (client i at begin + i * ramp / n; all at once when 0), then selects until
     * {@link #stop} or until a {@link #drain} finds nothing in flight or reaches its deadline,
     * calling {@link #scanTimeouts} every {@code scanNanos}. A throwable ends the loop and is kept
     * as {@link #failure()}.
     */
    final void runLoop(int clientCount, long rampNanos, long scanNanos) {
        try (Selector sel = Selector.open()) {
            selector = sel;
            register(sel);
            long begin = System.nanoTime();
            long now = begin;
            long nextScan = now + scanNanos;
            int started = 0;
            while (true) {
                int ph = phase;
                if (ph == STOP || ph == DRAIN && (counters.inFlight == 0 || System.nanoTime() - drainDeadline >= 0)) {
                    break;
                }
                long wake = nextScan;
                if (started < clientCount && ph == RUN) {
                    long due = (long) ((double) (now - begin) / Math.max(1, rampNanos) * clientCount) + 1;
                    for (; started < clientCount && (started < due || rampNanos == 0); started++) {
                        start(started, System.nanoTime());
                    }
                    wake = Math.min(wake, now + 1_000_000);
                }
                long waitMillis = Math.max(1, (wake - System.nanoTime()) / 1_000_000);
                sel.select(this::onKey, waitMillis);
                now = System.nanoTime();
                if (now - nextScan >= 0) {
                    scanTimeouts(now);
                    nextScan = now + scanNanos;
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            selector = null;
        }
    }

    /** Registers every client's channel for reading, the client as the key's attachment. */
    abstract void register(Selector sel) throws IOException;

    /** Sends client {@code index}'s first request. */
    abstract void start(int index, long now);

    /** Handles a ready key of one client. */
    abstract void onKey(SelectionKey key);

    /** Times out (or retransmits) the requests whose deadline is before {@code now}. */
    abstract void scanTimeouts(long now);

    @Override
    public SingleWriterRecorder recorder() {
        return recorder;
    }

    @Override
    public LoopCounters counters() {
        return counters;
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public void drain(long deadlineNanos) {
        drainDeadline = deadlineNanos;
        phase = DRAIN;
        wakeup();
    }

    @Override
    public void stop() {
        phase = STOP;
        wakeup();
    }

    private void wakeup() {
        Selector s = selector;
        if (s != null) {
            s.wakeup();
        }
    }
}
