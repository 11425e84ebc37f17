package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.elements.EndpointContext;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server side of one observe relation (RFC 7641 §4.1): a (peer, token) that registered with
 * GET/FETCH Observe=0 and gets a notification on every change. It lives in a slot of the
 * registration's {@link Exchange}, which stays open as long as the relation does: every
 * notification is a response on that exchange, so the exchange's token, peer and message-layer
 * state serve all of them.
 *
 * <p>Life cycle: the {@link ObserveLayer} attaches a <em>candidate</em> to each registration; the
 * resource stage {@link #accept accepts} it when the resource is observable and within its limits;
 * the layer <em>establishes</em> it when a 2.xx response with Observe goes out. It ends once, for
 * any of: deregistration (GET Observe=1), RST, CON notification timeout, a final non-2.xx
 * notification, {@link #cancel()} (resource deletion, server stop), or the exchange failing;
 * the {@link #onEnd end hooks} then tell the resource to forget it.
 *
 * <p>The sequence number of a notification is set by the resource stage, in the order of its
 * {@code changed()} calls (Lanter, thesis §5.4), before the notification enters the stack; this
 * object only remembers the last one sent so that a handler run that finished late cannot send an
 * older state after a newer one. Fields other than the end flag are touched holding the exchange.
 */
public final class ObserveRelation {

    static final Exchange.Slot<ObserveRelation> SLOT = new Exchange.Slot<>("observe-relation", ObserveRelation.class);

    private final Exchange exchange;
    private final ObserveLayer layer;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final CopyOnWriteArrayList<Runnable> endHooks = new CopyOnWriteArrayList<>();
    private volatile boolean accepted;
    private volatile boolean established;
    private volatile boolean notifying;
    private volatile Type notificationType = Type.CON;

    /** Where the layer keeps it once established: (peer, token) at the peer's latest address. */
    volatile ExchangeStore.TokenKey key;

    // Message-layer bookkeeping, guarded by the exchange.
    int lastSeq = -1;
    int sinceCon;
    long lastConNanos;
    boolean conInFlight;
    /** The newest notification not yet sent because a CON one is unacknowledged (RFC 7641 §4.5.2). */
    Response pending;
    /** Whether {@link #pending} is also the exchange's current response, which the next retransmission sends. */
    boolean pendingInRetransmission;

    ObserveRelation(Exchange exchange, ObserveLayer layer) {
        this.exchange = exchange;
        this.layer = layer;
    }

    /**
     * The relation a registration exchange carries, or {@code null} when the request was no
     * registration (no Observe=0, not GET/FETCH) or the relation has ended.
     */
    public static ObserveRelation of(Exchange exchange) {
        ObserveRelation r = exchange.get(SLOT);
        return r == null || r.isEnded() ? null : r;
    }

    /** The registration exchange; notifications are responses on it. */
    public Exchange exchange() {
        return exchange;
    }

    /** The registration request, as the handler saw it. */
    public Request request() {
        return exchange.request();
    }

    public EndpointContext peer() {
        return exchange.peer();
    }

    public Token token() {
        return exchange.request().token();
    }

    /**
     * The resource stage takes the registration: the 2.xx answer will carry Observe and keep the
     * relation. Without this call the registration is served as a plain GET (RFC 7641 §4.1).
     */
    public void accept() {
        accepted = true;
    }

    public boolean isAccepted() {
        return accepted;
    }

    /** Whether the registration response went out with Observe: notifications may follow. */
    public boolean isEstablished() {
        return established;
    }

    void establish() {
        established = true;
    }

    /**
     * Whether the registration answer went out, so that what the exchange sends from now on are
     * notifications (which the endpoint keeps to their share of the outbound queue).
     */
    public boolean isNotifying() {
        return notifying;
    }

    void registrationAnswered() {
        notifying = true;
    }

    /**
     * Message type of the following notifications: CON (the default) or NON. A NON relation still
     * sends a CON notification after OBSERVE_MAX_NON NON ones and every OBSERVE_CON_INTERVAL
     * (RFC 7641 §4.5).
     */
    public void setNotificationType(Type type) {
        if (type != Type.CON && type != Type.NON) {
            throw new IllegalArgumentException("notifications are CON or NON, not " + type);
        }
        this.notificationType = type;
    }

    public Type notificationType() {
        return notificationType;
    }

    /** Runs {@code hook} once when the relation ends (at once if it has ended). */
    public void onEnd(Runnable hook) {
        Objects.requireNonNull(hook, "hook");
        endHooks.add(hook);
        if (ended.get() && endHooks.remove(hook)) {
            hook.run();
        }
    }

    public boolean isEnded() {
        return ended.get();
    }

    /**
     * Ends the relation without a final notification (resource deletion without one, server stop,
     * plugtest "lost state"): the resource forgets it and its exchange completes, so a later
     * notification can never be sent and the client's next re-registration starts afresh.
     */
    public void cancel() {
        end();
        if (established) {
            layer.completeLater(exchange);
        } // else the registration, still being handled, is answered without Observe
    }

    /** Marks the relation ended and runs the end hooks; the exchange may still carry a final message. */
    void end() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        layer.forget(this);
        for (Runnable hook : endHooks) {
            if (endHooks.remove(hook)) {
                hook.run();
            }
        }
    }

    /** Whether {@code seq} is newer than the last notification sent (24-bit serial arithmetic, RFC 7641 §4.4). */
    boolean isNewer(int seq) {
        return lastSeq < 0 || ObserveSequence.isNewer(lastSeq, seq);
    }

    /** The response as registration answer: remembers its sequence number. */
    void sent(Response notification) {
        lastSeq = notification.options().observe();
    }

    @Override
    public String toString() {
        return "ObserveRelation[" + exchange.peer().peer() + " token=" + token() + " " + request().options().uriPathString()
                + (ended.get() ? " ended" : established ? "" : " pending") + "]";
    }
}
