package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.core.network.stack.StackServices;
import io.stagecoach.elements.config.Configuration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * RFC 7641 Observe in the stack.
 *
 * <p><b>Server.</b> A GET or FETCH with Observe=0 gets a candidate {@link ObserveRelation} in its
 * exchange; a request with Observe (0 or 1) first ends the relation the same (peer, token) had
 * (re-registration replaces it, §4.1; deregistration ends it, §3.6). When the resource stage has
 * {@link ObserveRelation#accept accepted} it and the 2.xx answer carries Observe, the relation is
 * established and kept under (peer, token); otherwise the answer goes out without Observe.
 * Notifications are later responses on the same exchange:
 * <ul>
 *   <li>one older than the last sent (a handler run that finished late) is dropped (§4.4);</li>
 *   <li>type: the relation's (CON or NON), but CON after OBSERVE_MAX_NON NON notifications, at
 *       least every OBSERVE_CON_INTERVAL (§4.5), and always while the observer's address is not
 *       verified (RFC 7252 §11.3: its ACK verifies it);</li>
 *   <li>while a CON notification is unacknowledged, a newer one replaces the pending one: the
 *       next retransmission sends the freshest state with the old retransmission state, and
 *       whatever is still unsent goes out when the ACK arrives (§4.5.2);</li>
 *   <li>a non-2.xx notification is sent CON without Observe and ends the relation (§3.2, §4.2);
 *       a RST to any recent notification, or a CON notification that times out, ends it too (§3.6, §4.5);</li>
 *   <li>only the last {@value #KEEP_MIDS} notification MIDs stay registered for RST matching, so a
 *       long-lived relation holds a fixed number of store entries.</li>
 * </ul>
 *
 * <p><b>Client.</b> A notification whose body is larger than a block arrives as Block2 NUM=0 M=1;
 * {@link ObserveBlockFetcher} fetches the rest and delivers one notification (RFC 7959 §2.6).
 * Freshness checks and re-registration belong to the client's relation object (core.client),
 * which sees every notification in one critical section (Lanter, thesis §5.4).
 */
public final class ObserveLayer extends AbstractLayer {

    /** Notification MIDs kept registered per relation (a RST may answer any recent one). */
    static final int KEEP_MIDS = 4;

    private final ExchangeStore store;
    private final int maxNon;
    private final long conIntervalNanos;
    private final int maxMessageSize;
    private final boolean reliableTransport;
    private final ConcurrentHashMap<ExchangeStore.TokenKey, ObserveRelation> relations = new ConcurrentHashMap<>();
    private final ObserveBlockFetcher blocks = new ObserveBlockFetcher();
    private final LongAdder replaced = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private volatile StackServices services;

    public ObserveLayer(Configuration config, ExchangeStore store) {
        this(config, store, false);
    }

    /**
     * @param reliableTransport over TCP, TLS or WebSockets (RFC 8323 §7): notifications have no
     *     type and are never held back for an ACK; the relation ends with its connection
     */
    public ObserveLayer(Configuration config, ExchangeStore store, boolean reliableTransport) {
        this.reliableTransport = reliableTransport;
        this.store = store;
        this.maxNon = config.get(CoapConfig.OBSERVE_MAX_NON);
        this.conIntervalNanos = config.get(CoapConfig.OBSERVE_CON_INTERVAL).toNanos();
        this.maxMessageSize = config.get(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE);
    }

    /** Established server relations of this endpoint. */
    public int relations() {
        return relations.size();
    }

    /** The observe option (RFC 7641 §2); elective, named for completeness. */
    @Override
    public Set<OptionNumber> options() {
        return Set.of(OptionNumber.OBSERVE);
    }

    /**
     * Registers the gauges {@code observe_relations} (server relations), {@code observe.block_fetches}
     * (client follow-ups fetching the blocks of a large notification),
     * {@code observe.notifications_replaced} (replaced an unacknowledged CON notification before it
     * was sent, §4.5.2) and {@code observe.notifications_dropped} (older than one already sent).
     */
    @Override
    public void start(LayerContext ctx) {
        services = ctx.services();
        EndpointCounters counters = ctx.services().counters();
        counters.register(EndpointCounters.Gauge.OBSERVE_RELATIONS, relations::size);
        counters.gauge("observe.block_fetches", blocks::active);
        counters.gauge("observe.notifications_replaced", replaced::sum);
        counters.gauge("observe.notifications_dropped", dropped::sum);
    }

    /** Ends every relation without a final notification: their exchanges end with the endpoint. */
    @Override
    public void stop(LayerContext ctx) {
        for (ObserveRelation r : relations.values()) {
            r.cancel();
        }
    }

    // ---------------------------------------------------------------- server side

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        services = ctx.services();
        int observe = request.options().observe();
        if (observe >= 0 && (request.code() == Code.GET || request.code() == Code.FETCH)) {
            ObserveRelation old = relations.get(key(exchange));
            if (old != null) {
                old.cancel();
            }
            if (observe == 0) {
                exchange.set(ObserveRelation.SLOT, new ObserveRelation(exchange, this));
            }
        }
        ctx.receiveRequest(exchange, request);
    }

    @Override
    public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
        ObserveRelation rel = exchange.isLocal() ? null : exchange.get(ObserveRelation.SLOT);
        if (rel == null) {
            ctx.sendResponse(exchange, response);
        } else if (!rel.isEstablished()) {
            register(ctx, exchange, rel, response);
        } else {
            notify(ctx, exchange, rel, response);
        }
    }

    private void register(LayerContext ctx, Exchange exchange, ObserveRelation rel, Response response) {
        if (!rel.isAccepted() || rel.isEnded() || !isNotification(response)) {
            exchange.set(ObserveRelation.SLOT, null);
            rel.end();
            ctx.sendResponse(exchange, withoutObserve(response)); // served as a plain GET (§4.1)
            return;
        }
        rel.establish();
        rel.sent(response);
        exchange.whenComplete(rel::end);
        rel.key = key(exchange);
        ObserveRelation previous = relations.put(rel.key, rel);
        if (previous != null && previous != rel) {
            previous.cancel();
        }
        rel.lastConNanos = ctx.services().scheduler().nanoTime();
        Request request = exchange.currentRequest();
        if (!reliableTransport && request.type() == Type.CON
                && !ctx.services().isAddressVerified(exchange.peer().peer())) {
            // To an address not verified, the registration answer goes as a CON separate response:
            // its ACK verifies the address (RFC 7252 §11.3), after which notifications are not held
            // to the amplification limit; a spoofed victim does not ACK, and gets nothing more.
            ctx.sendEmpty(exchange, EmptyMessage.ackFor(request));
        }
        ctx.sendResponse(exchange, response);
        rel.registrationAnswered();
        Response sent = exchange.currentResponse();
        rel.conInFlight = !reliableTransport && sent != null && sent.type() == Type.CON && !exchange.isComplete();
    }

    private void notify(LayerContext ctx, Exchange exchange, ObserveRelation rel, Response response) {
        if (rel.isEnded() || exchange.isComplete()) {
            dropped.increment();
            return;
        }
        boolean notification = isNotification(response);
        Response r = response;
        if (notification) {
            int seq = response.options().observe();
            if (!rel.isNewer(seq)) {
                dropped.increment(); // a handler run for an older change finished after a newer one
                return;
            }
            rel.lastSeq = seq;
        } else {
            r = withoutObserve(response);
            rel.end(); // no notification after this one; the exchange ends with its ACK (§3.2)
        }
        if (rel.conInFlight) {
            replaced.increment();
            rel.pending = r;
            rel.pendingInRetransmission = r.payloadLength() <= maxMessageSize;
            if (rel.pendingInRetransmission) {
                // The next retransmission carries this state instead (a block-wise one waits for the ACK).
                exchange.setCurrentResponse(r.newBuilder().type(Type.CON).mid(-1).build());
            }
            return;
        }
        send(ctx, exchange, rel, r, notification);
    }

    private void send(LayerContext ctx, Exchange exchange, ObserveRelation rel, Response r, boolean notification) {
        if (reliableTransport) {
            ctx.sendResponse(exchange, r); // no CON/NON choice, nothing in flight (RFC 8323 §7)
            return;
        }
        long now = ctx.services().scheduler().nanoTime();
        Type type = notification ? rel.notificationType() : Type.CON;
        if (type == Type.NON && (rel.sinceCon >= maxNon || now - rel.lastConNanos >= conIntervalNanos
                || !ctx.services().isAddressVerified(exchange.peer().peer()))) {
            // Learn now and then that the client is still interested (§4.5); to an address not
            // verified yet, always: its ACK proves the notifications reach who asked (RFC 7252
            // §11.3), a spoofed victim's silence ends the relation.
            type = Type.CON;
        }
        if (type == Type.CON) {
            rel.sinceCon = 0;
            rel.lastConNanos = now;
            rel.conInFlight = true;
        } else {
            rel.sinceCon++;
        }
        Response out = r.withType(type);
        ctx.sendResponse(exchange, out.mid() < 0 ? out : out.withMid(-1));
        store.trimMids(exchange, KEEP_MIDS);
        followPeer(rel);
    }

    /**
     * Keeps the relation under its observer's current address: the endpoint moves an exchange
     * whose DTLS session moved (RFC 9146 §6) when it sends on it, so a deregistration or
     * re-registration from the new address finds the relation. When the observer registered again
     * from there with the same token, that newer relation replaces this one (§4.1).
     */
    private void followPeer(ObserveRelation rel) {
        ExchangeStore.TokenKey was = rel.key;
        if (was == null || was.peer().equals(rel.exchange().peer().peer())) {
            return;
        }
        ExchangeStore.TokenKey now = key(rel.exchange());
        relations.remove(was, rel);
        rel.key = now;
        ObserveRelation other = relations.putIfAbsent(now, rel);
        if (other != null && other != rel) {
            rel.cancel();
        } else if (rel.isEnded()) {
            relations.remove(now, rel); // ended meanwhile on another thread, which removed the old key
        }
    }

    @Override
    public void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
        ObserveRelation rel = exchange.isLocal() ? null : exchange.get(ObserveRelation.SLOT);
        if (rel != null && rel.isEstablished()) {
            if (message.type() == Type.RST) {
                rel.end(); // the client rejected a notification: it forgot the relation (§3.6)
                exchange.complete();
            } else if (message.type() == Type.ACK) {
                rel.conInFlight = false;
                Response pending = rel.pending;
                rel.pending = null;
                if (pending != null && !exchange.isComplete()
                        && (!rel.pendingInRetransmission || exchange.currentResponse().mid() < 0)) {
                    send(ctx, exchange, rel, pending, isNotification(pending));
                }
            }
        }
        ctx.receiveEmpty(exchange, message);
    }

    // ---------------------------------------------------------------- client side

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        if (blocks.isFollowUp(exchange)) {
            blocks.onWhole(ctx, exchange, response);
            return;
        }
        BlockOption b2 = response.options().block2();
        if (isNotification(response) && b2 != null && b2.num() == 0 && b2.more()) {
            blocks.fetch(ctx, exchange, response);
            return;
        }
        ctx.receiveResponse(exchange, response);
    }

    // ---------------------------------------------------------------- helpers

    /** Removes an ended relation from the registry (called once by the relation). */
    void forget(ObserveRelation rel) {
        ExchangeStore.TokenKey k = rel.key;
        if (k != null) {
            relations.remove(k, rel);
        }
    }

    /** Completes an exchange on its protocol thread (never nested in another exchange's work when a pool runs). */
    void completeLater(Exchange exchange) {
        StackServices s = services;
        if (s != null) {
            s.execute(exchange, exchange::complete);
        } else {
            exchange.execute(exchange::complete);
        }
    }

    private static ExchangeStore.TokenKey key(Exchange exchange) {
        return new ExchangeStore.TokenKey(exchange.peer().peer(), exchange.request().token());
    }

    static boolean isNotification(Response r) {
        return r.code().isSuccess() && r.options().has(OptionNumber.OBSERVE);
    }

    private static Response withoutObserve(Response r) {
        if (!r.options().has(OptionNumber.OBSERVE)) {
            return r;
        }
        Response.Builder b = r.newBuilder();
        b.options().remove(OptionNumber.OBSERVE);
        return b.build();
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
