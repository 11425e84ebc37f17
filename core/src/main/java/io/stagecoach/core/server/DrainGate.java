package io.stagecoach.core.server;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.network.Exchange;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One resource stage's part of a graceful drain ({@link CoapServer#drain}). While draining, a
 * request that would start a new exchange is refused (the deliverer answers 5.03 with Max-Age,
 * RFC 7252 §5.9.3.4); one that continues a block-wise transfer (Block1 or Block2 with NUM &gt; 0,
 * RFC 7959 §2.3) is still served, so a transfer under way can end on this node.
 *
 * <p>To know when nothing is in flight, the gate counts handler runs not finished yet (queued on
 * a resource executor or running: two adder updates per request, no allocation) and remembers
 * the exchanges whose handler returned without answering (a separate response to come, RFC 7252
 * §5.2.2) until they are answered or their exchange ends.
 */
final class DrainGate {

    /** Remembered unanswered exchanges beyond which answered ones are pruned on the next add. */
    static final int PRUNE_AT = 1024;

    private final LongAdder running = new LongAdder();
    private final Set<CoapExchange> deferred = ConcurrentHashMap.newKeySet();
    private volatile boolean draining;

    /** From now on, refuse what {@link #refuses} names. */
    void close() {
        draining = true;
    }

    /** Serve everything again (the server was stopped and is started anew). */
    void open() {
        draining = false;
    }

    boolean isDraining() {
        return draining;
    }

    /**
     * Whether {@code exchange}'s request must be refused now: the stage is draining and the request
     * does not continue a block-wise transfer.
     */
    boolean refuses(Exchange exchange) {
        return draining && !continuesTransfer(exchange.currentRequest());
    }

    /** A handler run for a fresh request is about to be queued or started. */
    void started() {
        running.increment();
    }

    /** That run returned (or was refused by the executor); its answer may still be to come. */
    void finished(CoapExchange cx) {
        running.decrement();
        if (!isDone(cx)) {
            if (deferred.size() >= PRUNE_AT) {
                deferred.removeIf(DrainGate::isDone);
            }
            deferred.add(cx);
        }
    }

    /** Handler runs not finished plus answers promised and not sent; 0 when nothing is in flight. */
    int inFlight() {
        deferred.removeIf(DrainGate::isDone);
        return (int) Math.max(0, running.sum()) + deferred.size();
    }

    private static boolean isDone(CoapExchange cx) {
        return cx.isDone();
    }

    static boolean continuesTransfer(Request request) {
        BlockOption b1 = request.options().block1();
        BlockOption b2 = request.options().block2();
        return (b1 != null && b1.num() > 0) || (b2 != null && b2.num() > 0);
    }
}
