package io.stagecoach.core.server;

import java.util.concurrent.atomic.LongAdder;

/** Counters of the resource stage; cheap to increment from any thread. */
public final class ServerCounters {

    ServerCounters() {
    }

    final LongAdder delivered = new LongAdder();
    final LongAdder notFound = new LongAdder();
    final LongAdder notAcceptable = new LongAdder();
    final LongAdder rejectedOverload = new LongAdder();
    final LongAdder handlerErrors = new LongAdder();
    final LongAdder observeRejected = new LongAdder();
    final LongAdder notificationsSkipped = new LongAdder();
    final LongAdder refusedDraining = new LongAdder();

    /** Requests that reached the resource stage. */
    public long delivered() {
        return delivered.sum();
    }

    /** Requests answered 4.04 because no resource has their path. */
    public long notFound() {
        return notFound.sum();
    }

    /** Requests answered 4.06 because the resource does not serve their Accept. */
    public long notAcceptable() {
        return notAcceptable.sum();
    }

    /** Requests answered 5.03 because the resource's executor refused them. */
    public long rejectedOverload() {
        return rejectedOverload.sum();
    }

    /** Requests whose handler threw (answered 5.00 unless it had answered already). */
    public long handlerErrors() {
        return handlerErrors.sum();
    }

    /**
     * Observe registrations served as plain GETs because OBSERVE_MAX_OBSERVERS_PER_RESOURCE or
     * OBSERVE_MAX_OBSERVERS was reached (RFC 7641 §4.1).
     */
    public long observeRejected() {
        return observeRejected.sum();
    }

    /** Notifications not produced because the resource's executor refused the handler run. */
    public long notificationsSkipped() {
        return notificationsSkipped.sum();
    }

    /** Requests answered 5.03 because the server was draining ({@link CoapServer#drain}). */
    public long refusedDraining() {
        return refusedDraining.sum();
    }

    @Override
    public String toString() {
        return "ServerCounters[delivered=" + delivered() + " notFound=" + notFound() + " notAcceptable="
                + notAcceptable() + " rejectedOverload=" + rejectedOverload() + " handlerErrors=" + handlerErrors()
                + " observeRejected=" + observeRejected() + " refusedDraining=" + refusedDraining() + "]";
    }
}
