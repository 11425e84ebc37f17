package io.stagecoach.bench.load;

import java.nio.channels.Selector;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * What the UDP and the TCP event loop share: the phase the controller sets ({@link #drain},
 * {@link #stop}) and the selector wake-up that makes them seen at once, the histogram and the
 * counters it reads, and the failure that ended the loop.
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
