package io.stagecoach.core.server;

import io.stagecoach.core.network.internal.layers.ObserveRelation;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Takes the notifications {@code changed()} starts off the caller's thread (RFC 7641 §4.2): they
 * run on the endpoint's protocol stage in batches of {@value #BATCH}, each batch one task, so
 * requests arriving meanwhile are served between batches. A relation waiting for its turn holds
 * one pending notification: a newer change replaces its sequence number (RFC 7641 §4.5.2 allows
 * skipping intermediate states), so a burst of changes costs at most one entry per relation.
 */
final class NotificationDispatcher {

    static final int BATCH = 64;

    /** What one relation's next notification needs. */
    private record Pending(CoapResource resource, ObserverSet.Observer observer, int seq) {
    }

    private final ServerMessageDeliverer deliverer;
    private final ExchangeResponder stage;
    private final ConcurrentLinkedQueue<ObserveRelation> queue = new ConcurrentLinkedQueue<>();
    private final Map<ObserveRelation, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    NotificationDispatcher(ServerMessageDeliverer deliverer, ExchangeResponder stage) {
        this.deliverer = deliverer;
        this.stage = stage;
    }

    /** Queues a notification of {@code observer}, or updates the one already queued. */
    void submit(CoapResource resource, ObserverSet.Observer observer, int seq) {
        ObserveRelation relation = observer.relation();
        if (pending.put(relation, new Pending(resource, observer, seq)) == null) {
            queue.add(relation);
        }
        schedule();
    }

    /** Notifications waiting now. */
    int size() {
        return pending.size();
    }

    private void schedule() {
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true) && !stage.submit(this::drain)) {
            scheduled.set(false); // the stage is full or stopped: the next change tries again
            deliverer.counters().notificationsSkipped.increment();
        }
    }

    private void drain() {
        try {
            for (int i = 0; i < BATCH; i++) {
                ObserveRelation relation = queue.poll();
                if (relation == null) {
                    break;
                }
                Pending p = pending.remove(relation);
                if (p != null && !relation.isEnded()) {
                    deliverer.runNotification(p.resource(), p.observer(), p.seq());
                }
            }
        } finally {
            scheduled.set(false);
            schedule();
        }
    }
}
