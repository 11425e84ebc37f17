package io.stagecoach.core.client;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.layers.ObserveSequence;
import io.stagecoach.core.observe.Observation;
import io.stagecoach.core.observe.ObservationStore;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of one observation (RFC 7641 §3), made by {@link CoapClient#observe(CoapHandler)}.
 *
 * <ul>
 *   <li>The handler's {@code onLoad} runs for the registration response and each fresh
 *       notification, in order. A notification is fresh when its Observe number is newer in 24-bit
 *       serial arithmetic or more than 128 s passed on the endpoint's clock (§3.4), and always over
 *       TCP, TLS and WebSockets, which keep the order (RFC 8323 §7.2); stale ones are
 *       dropped. The freshness check, the update of {@link #current()} and the handler call are
 *       one critical section (Lanter, thesis §5.4), so two protocol threads can never deliver an
 *       older state after a newer one. Do not block in the handler.</li>
 *   <li>An answer without Observe (an error, a 2.05 from a server that did not register us, a
 *       final 4.04) reaches {@code onLoad} and ends the observation.</li>
 *   <li>When Max-Age plus OBSERVE_REREGISTRATION_MARGIN passes without a fresh notification, the
 *       client re-registers with the same token (§3.3.1). A registration that fails (no answer
 *       within the client's timeout, all retransmissions lost, RST, endpoint stopped) reports
 *       {@code onError} once and ends the observation.</li>
 *   <li>{@link #proactiveCancel()} deregisters with GET Observe=1 (§3.6); {@link #reactiveCancel()}
 *       forgets the relation, and the next notification draws a RST from the endpoint.</li>
 *   <li>On an endpoint with an {@link ObservationStore}, the observation is stored once the
 *       server has accepted it (the first answer with Observe) and removed when it ends, so
 *       another node of a cluster can match its notifications (docs/cluster.md).</li>
 * </ul>
 *
 * <p>Lock order: this object's monitor is taken inside an exchange's (when a notification is
 * delivered) and never the other way round; work on exchanges is done after leaving it.
 */
public final class CoapObserveRelation {

    private static final Logger LOG = LoggerFactory.getLogger(CoapObserveRelation.class);

    private final CoapEndpoint endpoint;
    private final Scheduler clock;
    private final Request registration;
    private final CoapHandler handler;
    private final Duration timeout;
    private final long marginNanos;

    // guarded by this
    private Registration current;
    private Token token;
    private CoapResponse latest;
    private int lastSeq = -1;
    private long lastNanos;
    private boolean canceled;
    private long deadline;
    private long timerAt;
    private boolean awaitingAnswer;
    private Cancellable timer;
    private long staleDropped;
    private int reregistrations;
    private boolean stored;

    private CoapObserveRelation(CoapEndpoint endpoint, Request registration, CoapHandler handler, Duration timeout,
            Duration margin) {
        this.endpoint = endpoint;
        this.clock = endpoint.scheduler();
        this.registration = registration;
        this.handler = Objects.requireNonNull(handler, "handler");
        this.timeout = timeout;
        this.marginNanos = margin.toNanos();
    }

    /** Sends {@code registration} (which must carry Observe=0) and returns the relation. */
    static CoapObserveRelation start(CoapEndpoint endpoint, Request registration, CoapHandler handler,
            Duration timeout, Duration margin) {
        if (registration.options().observe() != 0) {
            throw new IllegalArgumentException("an observe registration carries Observe=0, got "
                    + registration.options().observe());
        }
        CoapObserveRelation relation = new CoapObserveRelation(endpoint, registration, handler, timeout, margin);
        relation.register(registration);
        return relation;
    }

    /** The last fresh notification or response, or {@code null} before the first one. */
    public synchronized CoapResponse current() {
        return latest;
    }

    /** Whether the observation has ended (cancelled, failed, or answered without Observe). */
    public synchronized boolean isCanceled() {
        return canceled;
    }

    /** Notifications dropped as not fresh (RFC 7641 §3.4). */
    public synchronized long staleNotifications() {
        return staleDropped;
    }

    /** Re-registrations sent, by {@link #reregister()} or on Max-Age expiry. */
    public synchronized int reregistrations() {
        return reregistrations;
    }

    /**
     * Registers again with the same token (RFC 7641 §3.3.1); the server replaces its entry. Does
     * nothing once the observation has ended.
     */
    public void reregister() {
        Exchange old;
        Request again;
        synchronized (this) {
            if (canceled || current == null) {
                return;
            }
            reregistrations++;
            old = current.exchange;
            again = registration.newBuilder().token(token).mid(-1).build();
        }
        complete(old); // frees the token so that the token layer lets the new request use it
        register(again);
    }

    /**
     * Ends the observation and deregisters with GET Observe=1 and the same token (RFC 7641 §3.6);
     * the server answers it as a plain GET. The handler hears nothing more.
     *
     * @return the answer to the deregistration request
     */
    public CompletableFuture<CoapResponse> proactiveCancel() {
        Exchange old;
        Request cancel;
        synchronized (this) {
            old = forget();
            unstore();
            Request.Builder b = registration.newBuilder().token(token).mid(-1);
            b.options().observe(1);
            cancel = b.build();
        }
        complete(old);
        return ClientCall.send(endpoint, cancel, timeout);
    }

    /**
     * Ends the observation locally (RFC 7641 §3.6): the relation's token is forgotten, so the
     * server's next notification is answered with RST and the server drops the relation. An
     * observation store forgets it too, so no node of a cluster adopts it.
     */
    public void reactiveCancel() {
        Exchange old;
        synchronized (this) {
            old = forget();
            unstore();
        }
        complete(old);
    }

    /**
     * Ends the observation here only: an observation store keeps it, so that its notifications
     * reach another node's (or this endpoint's) notification listeners ({@link CoapClient#close()}).
     */
    void detach() {
        Exchange old;
        synchronized (this) {
            old = forget();
        }
        complete(old);
    }

    // ------------------------------------------------------------------ internals

    private void register(Request request) {
        Registration r = new Registration();
        synchronized (this) {
            current = r;
            awaitingAnswer = true;
            arm(clock.nanoTime() + timeout.toNanos());
        }
        Exchange exchange = endpoint.sendRequest(request, r);
        synchronized (this) {
            r.exchange = exchange;
            if (token == null) {
                token = exchange.currentRequest().token(); // the token layer chose it
            }
            if (current != r) {
                exchange = null; // cancelled meanwhile: drop this registration too
            }
        }
        if (exchange == null) {
            complete(r.exchange);
        }
    }

    private synchronized void onResponse(Registration r, Exchange exchange, Response response) {
        if (canceled || r != current) {
            return; // an earlier registration's late delivery
        }
        long now = clock.nanoTime();
        int seq = response.options().observe();
        CoapResponse answer = new CoapResponse(response, Duration.ofNanos(now - exchange.createdNanos()));
        if (response.code().isSuccess() && seq >= 0) {
            // Over TCP, TLS and WebSockets notifications arrive in order and their Observe value
            // must be ignored (RFC 8323 §7.2: it may be empty, i.e. 0, in every one): all are fresh.
            boolean fresh = lastSeq < 0 || endpoint.isReliableTransport()
                    || ObserveSequence.isFresh(lastSeq, lastNanos, seq, now)
                    || (awaitingAnswer && seq == lastSeq); // a re-registration without change since
            if (!fresh) {
                staleDropped++;
                return;
            }
            lastSeq = seq;
            lastNanos = now;
            awaitingAnswer = false;
            latest = answer;
            if (!stored) {
                store();
            }
            long next = now + Duration.ofSeconds(response.options().effectiveMaxAge()).toNanos() + marginNanos;
            if (timer == null || timerAt > next) {
                arm(next);
            } else {
                deadline = next; // the timer fires earlier and re-arms itself for this
            }
            handler.onLoad(answer);
        } else {
            forget(); // no Observe: this answer is the last (RFC 7641 §3.2, §3.6)
            unstore();
            latest = answer;
            handler.onLoad(answer);
        }
    }

    private synchronized void onFailure(Registration r, Throwable cause) {
        if (canceled || r != current) {
            return;
        }
        forget();
        if (endpoint.isRunning()) {
            unstore(); // the registration failed; a stopping endpoint leaves the store as it is
        }
        handler.onError(ClientCall.translate(cause));
    }

    /** Runs on the endpoint's timer: re-registers after Max-Age + margin, fails an unanswered registration. */
    private void onTimer() {
        Exchange unanswered = null;
        synchronized (this) {
            timer = null;
            if (canceled) {
                return;
            }
            long now = clock.nanoTime();
            if (now < deadline) {
                arm(deadline); // notifications moved the deadline; one timer per relation, re-armed lazily
                return;
            }
            if (awaitingAnswer) {
                unanswered = forget();
                unstore();
                handler.onError(new CoapTimeoutException("no answer to the observe registration within "
                        + timeout.toMillis() + " ms"));
            }
        }
        if (unanswered != null) {
            complete(unanswered);
        } else {
            reregister();
        }
    }

    /** Holding this: (re)arms the single timer for {@code at}. */
    private void arm(long at) {
        deadline = at;
        timerAt = at;
        if (timer != null) {
            timer.cancel();
        }
        timer = clock.schedule(this::onTimer, Duration.ofNanos(Math.max(0, at - clock.nanoTime())));
    }

    /** Holding this: keeps the established observation in the endpoint's store, if it has one. */
    private void store() {
        ObservationStore store = endpoint.observationStore();
        if (store == null || token == null || token.isEmpty()) {
            return;
        }
        stored = true;
        Observation o = new Observation(registration.withToken(token), registration.peer().peer());
        store.put(o).whenComplete((v, t) -> {
            if (t != null) {
                LOG.warn("storing {} failed: {}", o, t.toString());
            }
        });
    }

    /**
     * Holding this: removes the observation from the endpoint's store: it ended for good (the
     * application cancelled it, the server ended it, a registration failed). Not when the
     * endpoint merely stops: then the store keeps it for another node or a restart.
     */
    private void unstore() {
        if (stored) {
            stored = false;
            Token t = token;
            endpoint.observationStore().remove(t).whenComplete((v, e) -> {
                if (e != null) {
                    LOG.warn("removing observation {} from the store failed: {}", t, e.toString());
                }
            });
        }
    }

    /** Holding this: ends the observation; returns the exchange to complete after leaving the monitor. */
    private Exchange forget() {
        canceled = true;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        Exchange e = current == null ? null : current.exchange;
        current = null;
        return e;
    }

    private static void complete(Exchange exchange) {
        if (exchange != null) {
            exchange.execute(exchange::complete);
        }
    }

    @Override
    public synchronized String toString() {
        return "CoapObserveRelation[" + registration.options().uriPathString() + " token=" + token
                + (canceled ? " canceled" : "") + " last=" + lastSeq + "]";
    }

    /** One registration request: its exchange's listener; late deliveries of a replaced one are ignored. */
    private final class Registration implements Exchange.Listener {
        volatile Exchange exchange;

        @Override
        public void onResponse(Exchange ex, Response response) {
            CoapObserveRelation.this.onResponse(this, ex, response);
        }

        @Override
        public void onFailure(Exchange ex, Throwable cause) {
            CoapObserveRelation.this.onFailure(this, cause);
        }
    }
}
