package io.stagecoach.bench.ccsim;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * One IoT client of Järvinen et al., ANRW '18, §3.2: sends one request at a time until
 * {@code target} of them succeeded. A failed exchange (MAX_RETRANSMIT exhausted) does not count;
 * the client sends the next request, since the paper's clients run "until 50 successful pairs
 * have been exchanged". Random clients reset the congestion state after each batch of 1..10.
 *
 * <p>The next request is scheduled with zero delay rather than sent from inside the listener, so
 * the stack never recurses into itself.
 */
final class SimClient implements Exchange.Listener {

    private static final int MAX_BATCH = 10;

    private final CoapEndpoint endpoint;
    private final ClientTap tap;
    private final Request request;
    private final InetSocketAddress server;
    private final Workload workload;
    private final int target;
    private final RandomGenerator random;
    private final Scheduler scheduler;
    private final Runnable onFinished;
    private final Runnable sendNext = this::send;
    private int succeeded;
    private int failed;
    private int batchLeft;
    private long startNanos;
    private long finishNanos = -1;

    SimClient(CoapEndpoint endpoint, ClientTap tap, Request request, Workload workload, int target,
            RandomGenerator random, Scheduler scheduler, Runnable onFinished) {
        this.endpoint = endpoint;
        this.tap = tap;
        this.request = request;
        this.server = request.peer().peer();
        this.workload = workload;
        this.target = target;
        this.random = random;
        this.scheduler = scheduler;
        this.onFinished = onFinished;
    }

    void start() {
        startNanos = scheduler.nanoTime();
        batchLeft = nextBatch();
        send();
    }

    private void send() {
        endpoint.sendRequest(request, this);
    }

    @Override
    public void onResponse(Exchange exchange, Response response) {
        tap.exchangeEnded(true);
        succeeded++;
        if (succeeded == target) {
            finishNanos = scheduler.nanoTime();
            onFinished.run();
            return;
        }
        if (workload == Workload.RANDOM && --batchLeft == 0) {
            endpoint.resetCongestionState(server); // a new device takes over (§3.2)
            batchLeft = nextBatch();
        }
        scheduler.schedule(sendNext, Duration.ZERO);
    }

    @Override
    public void onFailure(Exchange exchange, Throwable cause) {
        tap.exchangeEnded(false);
        failed++;
        scheduler.schedule(sendNext, Duration.ZERO);
    }

    private int nextBatch() {
        return Math.min(target - succeeded, 1 + random.nextInt(MAX_BATCH));
    }

    boolean finished() {
        return finishNanos >= 0;
    }

    /** Flow completion time: first request sent to last response received. */
    long fctNanos() {
        return finishNanos - startNanos;
    }

    int failed() {
        return failed;
    }
}
