package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.Overload;
import io.stagecoach.core.network.internal.PeerKey;
import io.stagecoach.core.network.internal.Source;
import io.stagecoach.core.network.ExchangeRejectedException;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.core.network.internal.cc.CongestionControl;
import io.stagecoach.core.network.internal.cc.CongestionSettings;
import io.stagecoach.core.network.internal.cc.PeerCongestionState;
import io.stagecoach.core.network.internal.cc.PeerStateMap;
import io.stagecoach.core.network.internal.cc.RetransmissionTimer;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Cancellable;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The message layer of RFC 7252 §4: message types, acknowledgement and retransmission.
 *
 * <ul>
 *   <li>Outgoing CON messages (requests, separate responses) are retransmitted with the timeouts
 *       of the configured congestion-control strategy (RFC 7252 §4.2, CoCoA, full backoff) until an
 *       ACK, RST or response arrives; after MAX_RETRANSMIT retransmissions the exchange fails with
 *       {@link ExchangeTimeoutException}. A RST fails it with {@link ExchangeRejectedException}.</li>
 *   <li>NSTART (§4.7): CON requests to a peer with NSTART outstanding interactions wait in order.</li>
 *   <li>Responses to a CON request are piggybacked in the ACK (§5.2.1). A handler that has not
 *       answered within SEPARATE_ACK_DELAY gets an empty ACK sent for it; its response then goes as
 *       a CON separate response (§5.2.2). A NON request gets a NON response (§5.2.3).</li>
 *   <li>A received CON response is acknowledged with an empty ACK.</li>
 * </ul>
 *
 * <p>Per-exchange state is a {@link State} in the exchange; per-peer congestion state lives in a
 * bounded LRU map. Timers are scheduled only where the protocol needs one: a CON in flight, and a
 * handler that did not answer synchronously.
 */
public final class ReliabilityLayer extends AbstractLayer {

    /** This layer's state in one exchange. */
    static final class State {
        RetransmissionTimer timer;
        Cancellable retransmission;
        int inFlightMid = -1;
        /** The CON in flight is an observe notification: its ACK must not end the relation's exchange. */
        boolean inFlightNotification;
        boolean cancelHooked;
        boolean requestAcked;
        boolean holdsNstart;
        Cancellable separateAck;
    }

    static final Exchange.Slot<State> STATE = new Exchange.Slot<>("reliability", State.class);

    private final int maxRetransmit;
    private final Duration separateAckDelay;
    private final CongestionControl congestion;
    private final PeerStateMap<PeerKey, PeerCongestionState> peers;
    private final NstartGate nstart;
    private final PendingResponses pending;
    private final long overloadMaxAge;

    /**
     * @param peers the per-peer congestion state; the endpoint keeps it to forget a peer on
     *        request ({@link #newPeerStates}). Keyed by {@link PeerKey}: a remote party chooses
     *        the addresses, and {@code InetSocketAddress} keys from one IPv6 /64 can be made to
     *        share a hash code
     */
    public ReliabilityLayer(Configuration config, PeerStateMap<PeerKey, PeerCongestionState> peers) {
        this.maxRetransmit = config.get(CoapConfig.MAX_RETRANSMIT);
        this.separateAckDelay = config.get(CoapConfig.SEPARATE_ACK_DELAY);
        CongestionSettings settings = CongestionSettings.builder()
                .ackTimeout(config.get(CoapConfig.ACK_TIMEOUT))
                .ackRandomFactor(config.get(CoapConfig.ACK_RANDOM_FACTOR))
                .maxBackedOffRto(config.get(CoapConfig.MAX_RTO))
                .peerStateCapacity(config.get(CoapConfig.CONGESTION_PEER_CAPACITY))
                .build();
        this.congestion = CongestionControl.of(config.get(CoapConfig.CONGESTION_CONTROL), settings);
        this.peers = peers;
        this.nstart = new NstartGate(config.get(CoapConfig.NSTART));
        this.pending = new PendingResponses(config.get(CoapConfig.SEPARATE_MAX_PENDING),
                config.get(CoapConfig.SEPARATE_MAX_PENDING_PER_SOURCE));
        this.overloadMaxAge = Overload.maxAgeSeconds(config);
    }

    // ---------------------------------------------------------------- client side

    @Override
    public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
        Request r = request.type() == null ? request.withType(Type.CON) : request;
        if (r.type() != Type.CON) {
            ctx.sendRequest(exchange, r);
            return;
        }
        InetSocketAddress peer = exchange.peer().peer();
        Runnable later = () -> ctx.services().execute(exchange, () -> startConfirmable(ctx, exchange, r));
        if (nstart.acquireOrQueue(peer, later)) {
            startConfirmable(ctx, exchange, r);
        }
    }

    /** Runs holding an NSTART slot of the peer. */
    private void startConfirmable(LayerContext ctx, Exchange exchange, Request request) {
        State s = state(exchange);
        s.holdsNstart = true;
        exchange.whenComplete(() -> releaseNstart(ctx, exchange, s));
        if (exchange.isComplete()) {
            return; // cancelled while waiting for NSTART; the hook has released the slot
        }
        ctx.sendRequest(exchange, request);
        startRetransmission(ctx, exchange, s, exchange.currentRequest(),
                () -> ctx.sendRequest(exchange, exchange.currentRequest()));
    }

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        State s = exchange.get(STATE);
        if (s != null) {
            // A response implies the request arrived (RFC 7252 §5.2.2: the ACK may have been lost).
            stopRetransmission(ctx, s, true);
            releaseNstart(ctx, exchange, s);
        }
        if (response.type() == Type.CON) {
            ctx.sendEmpty(exchange, EmptyMessage.ackFor(response));
        }
        ctx.receiveResponse(exchange, response);
    }

    @Override
    public void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
        State s = exchange.get(STATE);
        if (s == null || (message.mid() != s.inFlightMid && !acknowledgesCurrent(exchange, message))) {
            if (!exchange.isLocal() && message.type() == Type.RST) {
                // A RST for an earlier NON notification of an observe relation (RFC 7641 §3.6):
                // the observe layer above decides.
                ctx.receiveEmpty(exchange, message);
                return;
            }
            ctx.services().counters().increment(Counter.UNMATCHED);
            return;
        }
        if (message.type() == Type.ACK) {
            stopRetransmission(ctx, s, true);
            if (!exchange.isLocal()) {
                // It answered the MID of our Confirmable message: it receives at its address.
                ctx.services().addressVerified(exchange.peer().peer());
            }
            if (exchange.isLocal()) {
                // An empty ACK ends the outstanding interaction (RFC 7252 §4.7); the response follows.
                releaseNstart(ctx, exchange, s);
            } else if (!s.inFlightNotification) {
                exchange.complete(); // our separate response was acknowledged
            }
        } else if (message.type() == Type.RST) {
            stopRetransmission(ctx, s, false);
            exchange.fail(new ExchangeRejectedException("peer " + exchange.peer().peer() + " answered MID "
                    + message.mid() + " with RST"));
        }
        ctx.receiveEmpty(exchange, message);
    }

    /**
     * An ACK to the CON response the exchange holds now, sent with a MID the timer has not seen:
     * a newer notification that replaced one in flight (RFC 7641 §4.5.2) may go out before the
     * next timeout, e.g. once an address probe was answered, and its ACK ends the wait as well.
     */
    private static boolean acknowledgesCurrent(Exchange exchange, EmptyMessage message) {
        Response current = exchange.isLocal() || message.type() != Type.ACK ? null : exchange.currentResponse();
        return current != null && current.type() == Type.CON && current.mid() == message.mid();
    }

    // ---------------------------------------------------------------- server side

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        ctx.receiveRequest(exchange, request);
        if (exchange.isComplete() || exchange.currentResponse() != null) {
            return; // answered synchronously (the common case): no State was needed
        }
        // The handler answers later: the exchange, its timers and its dedup entry stay meanwhile.
        Source source = Source.of(exchange.peer().peer());
        if (!pending.tryAcquire(source)) {
            ctx.services().limitExceeded(exchange.peer().peer(), "too many requests awaiting a separate response");
            // piggybacked (or NON); the handler's late answer then finds the exchange complete
            sendResponse(ctx, exchange, Overload.serviceUnavailable(request, overloadMaxAge)
                    .peer(exchange.peer()).build());
            exchange.complete();
            return;
        }
        exchange.whenComplete(() -> pending.release(source));
        if (request.type() != Type.CON) {
            return;
        }
        State s = state(exchange);
        if (!s.requestAcked) {
            // The handler did not answer synchronously: acknowledge now or after a short delay
            // so that a quick asynchronous answer can still be piggybacked (RFC 7252 §5.2.2).
            if (separateAckDelay.isZero()) {
                sendEmptyAck(ctx, exchange, s);
            } else {
                s.separateAck = ctx.services().scheduler().schedule(
                        () -> ctx.services().execute(exchange, () -> sendEmptyAck(ctx, exchange, s)),
                        separateAckDelay);
                exchange.whenComplete(() -> cancel(s.separateAck));
            }
        }
    }

    private void sendEmptyAck(LayerContext ctx, Exchange exchange, State s) {
        if (!s.requestAcked && !exchange.isComplete()) {
            s.requestAcked = true; // from now on the response goes as a CON separate response
            ctx.sendEmpty(exchange, EmptyMessage.ackFor(exchange.currentRequest()));
        }
    }

    @Override
    public void sendEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
        if (!exchange.isLocal() && message.type() == Type.ACK) {
            State s = state(exchange);
            if (s.requestAcked) {
                return; // one ACK per CON request: the first said all there is to say
            }
            s.requestAcked = true;
            cancel(s.separateAck);
        }
        ctx.sendEmpty(exchange, message);
    }

    @Override
    public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
        // The State is created only for an exchange that outlives this response (a CON to
        // retransmit, an observe relation): a piggybacked answer that ends the exchange needs none,
        // which saves ~64 B per request (the State and the exchange's slot array).
        State existing = exchange.get(STATE);
        Request request = exchange.currentRequest();
        Response r = response;
        boolean untyped = r.type() == null || r.type() == Type.ACK;
        boolean piggyback = request.type() == Type.CON && untyped && (existing == null || !existing.requestAcked);
        if (piggyback) {
            r = r.withTypeAndMid(Type.ACK, request.mid()); // one copy instead of withType + withMid
        } else if (untyped) {
            Type separate = request.type() == Type.CON ? Type.CON : Type.NON;
            // a response built as the piggybacked ACK carries the request's MID: a separate
            // response gets its own (§5.2.2; the Outbox would take a CON with a MID for a resend)
            r = r.type() == Type.ACK && r.mid() == request.mid() ? r.withTypeAndMid(separate, -1) : r.withType(separate);
        }
        boolean notification = isNotification(r);
        State s = existing != null || r.type() == Type.CON || notification ? state(exchange) : null;
        if (piggyback && s != null) {
            s.requestAcked = true;
            cancel(s.separateAck);
        }
        exchange.setCurrentResponse(r);
        ctx.sendResponse(exchange, r);
        if (r.type() == Type.CON) {
            // The resend sends whatever is the current response: the observe layer may have replaced
            // an unacknowledged notification by a newer one (RFC 7641 §4.5.2), which then inherits
            // this retransmission state and gets its own MID from the outbox.
            startRetransmission(ctx, exchange, s, exchange.currentResponse(), () -> {
                ctx.sendResponse(exchange, exchange.currentResponse());
                s.inFlightMid = exchange.currentResponse().mid();
                s.inFlightNotification = isNotification(exchange.currentResponse());
            });
            s.inFlightNotification = isNotification(exchange.currentResponse());
        } else if (!notification) {
            // Piggybacked or NON: the exchange is done once the message is out. Notifications of an
            // observe relation keep it open; the observe layer ends it.
            exchange.complete();
        }
    }

    // ---------------------------------------------------------------- retransmission

    private void startRetransmission(LayerContext ctx, Exchange exchange, State s, Message sent, Runnable resend) {
        if (exchange.isComplete()) {
            return; // the send failed and completed the exchange
        }
        stopRetransmission(ctx, s, false);
        long now = ctx.services().scheduler().nanoTime();
        PeerCongestionState peer = peers.computeIfAbsent(new PeerKey(exchange.peer().peer()),
                k -> congestion.newPeerState(now));
        s.timer = peer.startExchange(now, ctx.services().random());
        s.inFlightMid = sent.mid();
        schedule(ctx, exchange, s, s.timer.timeoutNanos(), resend);
        if (!s.cancelHooked) {
            // Once per exchange: an observe relation sends many CON notifications on one exchange.
            s.cancelHooked = true;
            exchange.whenComplete(() -> cancel(s.retransmission));
        }
    }

    /** A 2.xx response with Observe: a notification, which keeps its relation's exchange open (RFC 7641 §3.2). */
    private static boolean isNotification(Response r) {
        return r.code().isSuccess() && r.options().has(OptionNumber.OBSERVE);
    }

    private void schedule(LayerContext ctx, Exchange exchange, State s, long timeoutNanos, Runnable resend) {
        RetransmissionTimer timer = s.timer;
        s.retransmission = ctx.services().scheduler().schedule(
                () -> ctx.services().execute(exchange, () -> onTimeout(ctx, exchange, s, timer, resend)),
                Duration.ofNanos(timeoutNanos));
    }

    private void onTimeout(LayerContext ctx, Exchange exchange, State s, RetransmissionTimer timer, Runnable resend) {
        if (exchange.isComplete() || s.timer != timer || timer.isFinished()) {
            return; // acknowledged, cancelled or superseded meanwhile
        }
        long now = ctx.services().scheduler().nanoTime();
        if (timer.retransmissions() >= maxRetransmit) {
            timer.onFailure(now);
            s.timer = null;
            ctx.services().counters().increment(Counter.TIMEOUTS);
            exchange.fail(new ExchangeTimeoutException("no ACK from " + exchange.peer().peer() + " for MID "
                    + s.inFlightMid + " after " + maxRetransmit + " retransmissions"));
            return;
        }
        long next = timer.onTimeout();
        ctx.services().counters().increment(Counter.RETRANSMISSIONS);
        resend.run();
        schedule(ctx, exchange, s, next, resend);
    }

    private static void stopRetransmission(LayerContext ctx, State s, boolean success) {
        cancel(s.retransmission);
        s.retransmission = null;
        RetransmissionTimer timer = s.timer;
        if (timer != null && !timer.isFinished()) {
            long now = ctx.services().scheduler().nanoTime();
            if (success) {
                timer.onSuccess(now);
            } else {
                timer.onFailure(now);
            }
        }
    }

    private void releaseNstart(LayerContext ctx, Exchange exchange, State s) {
        if (!s.holdsNstart) {
            return;
        }
        s.holdsNstart = false;
        Runnable next = nstart.release(exchange.peer().peer());
        if (next != null) {
            next.run(); // hands itself to the protocol stage; never runs inline under this exchange
        }
    }

    private static State state(Exchange exchange) {
        State s = exchange.get(STATE);
        if (s == null) {
            s = new State();
            exchange.set(STATE, s);
        }
        return s;
    }

    private static void cancel(Cancellable c) {
        if (c != null) {
            c.cancel();
        }
    }

    /** An empty per-peer state map bounded by CONGESTION_PEER_CAPACITY (least recently used evicted). */
    public static PeerStateMap<PeerKey, PeerCongestionState> newPeerStates(Configuration config) {
        return new PeerStateMap<>(config.get(CoapConfig.CONGESTION_PEER_CAPACITY));
    }

    /** Registers the gauge {@code reliability.pending_responses}. */
    @Override
    public void start(LayerContext ctx) {
        ctx.services().counters().gauge("reliability.pending_responses", pending::size);
    }

    /** Peers with outstanding or queued CON requests (for tests and statistics). */
    int nstartPeers() {
        return nstart.peers();
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
