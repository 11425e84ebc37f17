package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.internal.layers.ObserveRelation;
import io.stagecoach.core.network.internal.layers.ObserveSequence;
import io.stagecoach.core.server.internal.ObserverBudget;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The observers of one {@link CoapResource} (RFC 7641 §4.1) and the resource's Observe sequence
 * number.
 *
 * <p>The sequence number is assigned here, in the order of {@link #changed()} calls, before any
 * notification is handed to a thread (Lanter, thesis §5.4: a number assigned later, by whichever
 * protocol thread gets there first, could invert two changes). Each observer then gets a handler
 * run that answers with that number; the observe layer drops a run that finishes after a newer one.
 *
 * <p>The relation object itself lives in its exchange (see {@link ObserveRelation}); this set only
 * refers to it, and its end hook removes it from here.
 */
final class ObserverSet {

    /** One observer: the relation and the resource stage it answers through. */
    record Observer(ObserveRelation relation, ServerMessageDeliverer deliverer, ExchangeResponder responder) {
    }

    private final CoapResource resource;
    private final Map<ObserveRelation, Observer> observers = new ConcurrentHashMap<>();
    private int seq; // guarded by this

    ObserverSet(CoapResource resource) {
        this.resource = resource;
    }

    int size() {
        return observers.size();
    }

    /**
     * Adds an accepted registration within the limits.
     *
     * @return the sequence number its registration response carries, or -1 when a limit is reached
     */
    int tryAdd(ObserveRelation relation, ServerMessageDeliverer deliverer, ExchangeResponder responder,
            int maxPerResource, ObserverBudget budget) {
        InetSocketAddress peer = relation.exchange().peer().peer();
        synchronized (this) {
            if (observers.size() >= maxPerResource || !budget.tryAcquire(peer)) {
                return -1;
            }
            observers.put(relation, new Observer(relation, deliverer, responder));
            relation.accept();
        }
        relation.onEnd(() -> {
            if (observers.remove(relation) != null) {
                budget.release(peer);
            }
        });
        synchronized (this) {
            return seq;
        }
    }

    /** Assigns the next sequence number and starts one notification per observer. */
    void changed() {
        Observer[] snapshot;
        int s;
        synchronized (this) {
            if (observers.isEmpty()) {
                return;
            }
            seq = ObserveSequence.next(seq);
            s = seq;
            snapshot = observers.values().toArray(new Observer[0]);
        }
        for (Observer o : snapshot) {
            o.relation().setNotificationType(resource.getObserveType());
            o.deliverer().notify(resource, o, s);
        }
    }

    /**
     * Sends each established observer a final notification with {@code code} (no Observe, CON)
     * and ends every relation (RFC 7641 §3.2: e.g. 4.04 when the resource is deleted).
     */
    void clearAndNotify(Code code) {
        clearAndNotify(code, -1);
    }

    /**
     * As {@link #clearAndNotify(Code)}, the final notification carrying Max-Age
     * {@code maxAgeSeconds} (none when negative): with 5.03 it tells the observer when to register
     * again (RFC 7252 §5.9.3.4), e.g. when the server drains.
     *
     * @return the observers sent a final notification
     */
    int clearAndNotify(Code code, long maxAgeSeconds) {
        int notified = 0;
        for (Observer o : observers.values().toArray(new Observer[0])) {
            ObserveRelation r = o.relation();
            if (r.isEstablished()) {
                Response.Builder b = Response.forRequest(r.request(), code).peer(r.peer());
                if (maxAgeSeconds >= 0) {
                    b.options().maxAge(maxAgeSeconds);
                }
                o.responder().respond(r.exchange(), b.build());
                notified++;
            } else {
                r.cancel(); // not answered yet: the registration will be answered without Observe
            }
        }
        return notified;
    }

    /** Ends every relation without notifying (the server "loses its observation state"). */
    void clear() {
        for (Observer o : observers.values().toArray(new Observer[0])) {
            o.relation().cancel();
        }
    }
}
