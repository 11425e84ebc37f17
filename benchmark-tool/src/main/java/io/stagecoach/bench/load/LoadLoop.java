package io.stagecoach.bench.load;

import org.HdrHistogram.SingleWriterRecorder;

/**
 * One thread's share of the virtual clients of a step, over UDP ({@link EventLoop}) or TCP
 * ({@link TcpEventLoop}): {@link StepRunner} starts it, reads its recorder and counters, drains
 * and stops it.
 */
interface LoadLoop extends Runnable {

    /** Round-trip times (µs) of the 2.xx answers; swapped by the controller per interval. */
    SingleWriterRecorder recorder();

    LoopCounters counters();

    /** The exception that ended the loop early, or {@code null}. */
    Throwable failure();

    /** Stops issuing requests; the loop ends once nothing is in flight or at {@code deadlineNanos}. */
    void drain(long deadlineNanos);

    /** Ends the loop at once. */
    void stop();

    /** Closes the clients' sockets (after the loop ended). */
    void closeClients();
}
