package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.AddressVerifier;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.MessageIdProvider;
import io.stagecoach.core.network.internal.MidExhaustedException;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import io.stagecoach.core.network.internal.layers.ObserveRelation;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bottom of the stack: gives a message its MID, registers the exchange for the ACK/RST it may
 * get, remembers the reply for duplicate detection, encodes it and hands it to the connector.
 *
 * <p>It also keeps the amplification limit (RFC 7252 §11.3): every datagram answering a request
 * from an address not verified ({@link AddressVerifier}) counts against factor × the request's
 * size. A first response over the limit is replaced by 4.01 with an Echo challenge (RFC 9175
 * §2.4); a later one (a notification, a retransmission) is not sent, as if lost, and an
 * {@link AddressProbe} (a CoAP ping within the budget) asks whether anyone receives there: an
 * answer lets that message out once, so that an observer whose ACK was lost is not left silent.
 *
 * <p>Notifications occupy at most OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT places in the connector's
 * outbound queue, so that a fan-out cannot crowd other traffic out of it. Further notifications
 * wait here, encoded and in order, and go out as the connector reports earlier ones sent; a
 * fan-out to more observers than the share is thus paced by the connector, not cut off. The
 * wait is bounded ({@value #HOLD_FACTOR} × the share); beyond it a notification counts as lost
 * (a confirmable one is retransmitted, a non-confirmable one superseded by the next).
 *
 * <p>Runs on the thread that holds the exchange.
 */
final class Outbox implements LayerStack.Outbox {

    private final Connector connector;
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();
    private final UdpMessageParser parser = new UdpMessageParser();
    private final MessageIdProvider mids;
    private final ExchangeStore store;
    private final DeduplicationStore dedup;
    private final EndpointCounters counters;
    // an array: a for-each over a List builds an iterator per message (24 B)
    private final MessageInterceptor[] interceptors;
    private final Scheduler clock;
    private final AddressVerifier verifier;
    private final int maxNotificationsInFlight;
    private final AtomicInteger notificationsInFlight = new AtomicInteger();
    /** Notifications waiting for a place in the connector's queue, oldest first. */
    private final ConcurrentLinkedQueue<HeldNotification> waiting = new ConcurrentLinkedQueue<>();
    // counted apart: ConcurrentLinkedQueue.size() walks the queue
    private final AtomicInteger waitingCount = new AtomicInteger();
    private final AtomicBoolean releasing = new AtomicBoolean();
    /** How many shares of notifications may wait here, beyond the share in the connector's queue. */
    static final int HOLD_FACTOR = 64;
    /** Bytes of an Empty message (RFC 7252 §3): what an address probe costs. */
    static final int EMPTY_BYTES = 4;
    /**
     * How long an address probe waits for its RST: longer than a peer's ACK is awaited
     * (ACK_TIMEOUT × ACK_RANDOM_FACTOR, 3 s by default), so a slow answer still counts.
     */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(4);
    /** One callback for every notification: it gives its in-flight place to the next waiting one. */
    private final SendCallback notificationSent = new SendCallback() {
        @Override
        public void onSent() {
            notificationsInFlight.decrementAndGet();
            releaseWaiting();
        }

        @Override
        public void onFailed(Throwable cause) {
            notificationsInFlight.decrementAndGet();
            releaseWaiting();
        }
    };

    Outbox(Connector connector, MessageIdProvider mids, ExchangeStore store, DeduplicationStore dedup,
            EndpointCounters counters, List<MessageInterceptor> interceptors, AddressVerifier verifier,
            int maxNotificationsInFlight, Scheduler clock) {
        this.connector = connector;
        this.mids = mids;
        this.store = store;
        this.dedup = dedup;
        this.counters = counters;
        this.interceptors = interceptors.toArray(new MessageInterceptor[0]);
        this.clock = clock;
        this.verifier = verifier;
        this.maxNotificationsInFlight = maxNotificationsInFlight;
    }

    @Override
    public void sendRequest(Exchange exchange, Request request) {
        Request r = request;
        if (r.mid() < 0) {
            int mid = nextMid(exchange);
            if (mid < 0) {
                return;
            }
            r = r.withMid(mid);
            exchange.setCurrentRequest(r);
            store.registerMid(exchange, r.mid());
        }
        for (MessageInterceptor i : interceptors) {
            i.sendRequest(r);
        }
        send(exchange, r, exchange.isLocal() ? new FailExchange(exchange) : null);
    }

    @Override
    public void sendResponse(Exchange exchange, Response response) {
        if (!exchange.isLocal() && response.type() != Type.ACK) {
            followPeer(exchange);
        }
        Response r = response;
        // a CON that has its MID already is being sent again (a piggybacked ACK got the request's)
        boolean retransmission = r.type() == Type.CON && r.mid() >= 0;
        if (r.mid() < 0) {
            int mid = nextMid(exchange);
            if (mid < 0) {
                return;
            }
            r = r.withMid(mid);
            exchange.setCurrentResponse(r);
            store.registerMid(exchange, mid); // a CON awaits its ACK; a NON may draw a RST
        }
        EncodeScratch scratch = EncodeScratch.take();
        try {
            byte[] bytes = scratch.encode(serializer, r);
            if (!exchange.isLocal() && verifier.isEnabled()) {
                long limit = verifier.limit(exchange.requestBytes(), exchange.sentBytes());
                // the lookup only for an answer over the limit: most fit, and cost no lookup at all
                if (scratch.length > limit && !verifier.isVerified(exchange.peer().peer())) {
                    if (retransmission || isNotification(exchange)) {
                        AddressProbe probe = exchange.get(AddressProbe.SLOT);
                        if (probe == null || !probe.takeGrant()) {
                            // a later response: as if lost (RFC 7252 §11.3), but ask whether anyone receives
                            counters.increment(Counter.AMPLIFICATION_LIMITED);
                            probe(exchange, probe, limit);
                            return;
                        } // else the one message an answered probe lets out beyond the limit
                    } else {
                        r = challenge(exchange, r);
                        exchange.setCurrentResponse(r);
                        bytes = scratch.encode(serializer, r);
                        counters.increment(Counter.AMPLIFICATION_LIMITED);
                    }
                }
                exchange.addSentBytes(scratch.length);
            }
            boolean notification = r.type() != Type.ACK && !exchange.isLocal()
                    && r.options().has(OptionNumber.OBSERVE) && isNotification(exchange);
            if (notification && waitingCount.get() >= HOLD_FACTOR * maxNotificationsInFlight) {
                counters.increment(Counter.NOTIFICATIONS_DROPPED);
                return; // as if lost: a CON one is retransmitted, a NON one superseded by the next
            }
            for (MessageInterceptor i : interceptors) {
                i.sendResponse(r);
            }
            Request request = exchange.request();
            // the store copies the bytes out of the scratch buffer only if it keeps them
            if (r.type() == Type.ACK) {
                dedup.complete(exchange.peer().peer(), r.mid(), bytes, scratch.length);
            } else if (r.type() == Type.NON && request.type() == Type.NON) {
                dedup.complete(exchange.peer().peer(), request.mid(), bytes, scratch.length);
            }
            if (notification) {
                sendNotification(exchange, r.type(), scratch.copy());
            } else {
                counters.sent(r.type());
                connector.send(scratch.buffer(), exchange.peer());
            }
        } finally {
            scratch.release();
        }
    }

    /**
     * A notification takes a place in the connector's queue if one is free and none is waiting
     * (so that they leave in order); otherwise it waits for {@link #releaseWaiting}.
     */
    private void sendNotification(Exchange exchange, Type type, byte[] bytes) {
        if (waitingCount.get() == 0 && tryTakePlace()) {
            transmit(exchange, type, bytes, notificationSent);
            return;
        }
        counters.increment(Counter.NOTIFICATIONS_HELD);
        waitingCount.incrementAndGet();
        waiting.add(new HeldNotification(exchange, type, bytes));
        releaseWaiting(); // a place may have come free since the check
    }

    private boolean tryTakePlace() {
        while (true) {
            int n = notificationsInFlight.get();
            if (n >= maxNotificationsInFlight) {
                return false;
            }
            if (notificationsInFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /**
     * Moves waiting notifications into free places. One thread at a time: a connector that reports
     * a send from inside {@code send} re-enters here, finds the flag taken and returns, and the
     * loop of the outer call carries on, so the stack does not grow with the queue.
     */
    private void releaseWaiting() {
        while (waitingCount.get() > 0 && notificationsInFlight.get() < maxNotificationsInFlight
                && releasing.compareAndSet(false, true)) {
            try {
                while (waitingCount.get() > 0 && tryTakePlace()) {
                    HeldNotification next = waiting.poll();
                    if (next == null) {
                        notificationsInFlight.decrementAndGet(); // counted but not yet queued: its adder releases it
                        break;
                    }
                    waitingCount.decrementAndGet();
                    transmit(next.exchange(), next.type(), next.bytes(), notificationSent);
                }
            } finally {
                releasing.set(false);
            }
        }
    }

    /**
     * Sends an {@link AddressProbe} for {@code exchange}, whose message the limit held back, if
     * none is waiting, none was answered before, and the four bytes fit what is left of the
     * budget ({@code limit}); they count against it.
     */
    private void probe(Exchange exchange, AddressProbe existing, long limit) {
        if (limit < EMPTY_BYTES || (existing != null && !existing.maySend())) {
            return;
        }
        AddressProbe probe = existing;
        if (probe == null) {
            probe = new AddressProbe(exchange);
            exchange.set(AddressProbe.SLOT, probe);
        }
        probe.sent();
        exchange.addSentBytes(EMPTY_BYTES);
        AddressProbe p = probe;
        Exchange ping = Ping.send(exchange.peer(), PROBE_TIMEOUT, clock, mids, store, this,
                e -> e.set(AddressProbe.OF_PING, p));
        ping.whenComplete(() -> {
            if (ping.failure() != null) {
                p.unanswered();
            }
        });
    }

    /**
     * The ping of {@code probe} was answered: sends the message its exchange holds back, once,
     * beyond the limit. Runs holding that exchange, never nested in the ping's.
     */
    void probeAnswered(AddressProbe probe) {
        Exchange held = probe.held();
        if (!probe.answer() || held.isComplete()) {
            return;
        }
        Response current = held.currentResponse();
        if (current != null && current.type() == Type.CON) {
            sendResponse(held, current);
        }
    }

    /** An encoded notification waiting for a place in the connector's queue. */
    private record HeldNotification(Exchange exchange, Type type, byte[] bytes) {
    }

    /** Whether {@code exchange} answered its registration already: what it sends now is a notification. */
    private static boolean isNotification(Exchange exchange) {
        ObserveRelation relation = ObserveRelation.of(exchange);
        return relation != null && relation.isNotifying();
    }

    @Override
    public void sendEmpty(Exchange exchange, EmptyMessage message) {
        if (!exchange.isLocal()) {
            exchange.addSentBytes(4); // an empty ACK of a separate response counts too
        }
        for (MessageInterceptor i : interceptors) {
            i.sendEmpty(message);
        }
        byte[] bytes = encode(message);
        InetSocketAddress peer = exchange.peer().peer();
        if (message.type() == Type.ACK) {
            int mid = message.mid();
            if (dedup.completeEmptyAck(peer, mid) && !exchange.isLocal()
                    && dedup.mode() == DeduplicationMode.IDEMPOTENT_RELAXED) {
                // A relaxed idempotent request is remembered only while its exchange is open (§4.5).
                exchange.whenComplete(() -> dedup.release(peer, mid));
            }
        } else if (message.type() == Type.RST) {
            dedup.complete(peer, message.mid(), bytes);
        }
        transmit(exchange, message.type(), bytes, null);
    }

    /**
     * A response that is not piggybacked (a separate response, a notification, a retransmission)
     * goes where the peer is now: a DTLS session with a connection ID may have moved since the
     * request (RFC 9146 §6), and the peer's ACK will come from there. Other connectors answer with
     * the same context and this costs a call.
     */
    private void followPeer(Exchange exchange) {
        EndpointContext was = exchange.peer();
        EndpointContext now = connector.currentContext(was);
        if (now != was && !now.peer().equals(was.peer())) {
            store.move(exchange, now);
            counters.increment(Counter.PEER_MOVED);
        }
    }

    /**
     * The answer to an unverified address whose response would exceed the amplification limit:
     * 4.01 Unauthorized with an Echo option (RFC 9175 §2.4), in the place (type, MID, token) of
     * that response. A client that repeats the request with the Echo value verifies its address.
     */
    private Response challenge(Exchange exchange, Response r) {
        Response.Builder b = Response.forRequest(exchange.currentRequest(), Code.UNAUTHORIZED)
                .type(r.type()).mid(r.mid()).token(r.token()).peer(r.peer());
        b.options().echo(verifier.echo(exchange.peer().peer()));
        return b.build();
    }

    /**
     * Encodes and sends a message outside any exchange (RST to a ping, 4.02, 5.03, the ACK or RST
     * for a response nobody waits for). An ACK or RST is remembered as the answer to its MID, so
     * that duplicates of the message it answers get it again (RFC 7252 §4.5).
     */
    void sendDirect(EndpointContext context, Message message) {
        byte[] bytes = encode(message);
        if (message.type() == Type.ACK || message.type() == Type.RST) {
            dedup.complete(context.peer(), message.mid(), bytes);
        }
        sendUnrecorded(context, message, bytes);
    }

    /**
     * Sends an empty ACK for a duplicate whose stored answer is "empty ACK" (a separate response
     * is pending or was sent). Unlike {@link #sendDirect} it leaves the stored answer alone: in
     * IDEMPOTENT_RELAXED recording it would release the entry and let the next copy run the
     * handler a second time.
     */
    void resendEmptyAck(EndpointContext context, int mid) {
        EmptyMessage ack = EmptyMessage.of(Type.ACK, mid).withPeer(context);
        sendUnrecorded(context, ack, encode(ack));
    }

    /** Sends the stored reply to a duplicate again, byte for byte (RFC 7252 §4.5). */
    void resend(EndpointContext context, byte[] storedReply) {
        if (interceptors.length > 0) {
            // Interceptors see messages, not bytes; decode only when someone is listening.
            try {
                notifySend(parser.parse(storedReply, context, clock.nanoTime()));
            } catch (MessageFormatException e) {
                throw new IllegalStateException("stored reply does not parse: " + e.getMessage(), e);
            }
        }
        counters.sent(Type.valueOf((storedReply[0] >> 4) & 0x3));
        connector.send(RawData.outbound(storedReply, context, null));
    }

    /** Encodes and sends a message outside any exchange without recording it for duplicates. */
    void sendUnrecorded(EndpointContext context, Message message) {
        sendUnrecorded(context, message, encode(message));
    }

    private void sendUnrecorded(EndpointContext context, Message message, byte[] bytes) {
        notifySend(message);
        counters.sent(message.type());
        connector.send(RawData.outbound(bytes, context, null));
    }

    private void notifySend(Message message) {
        for (MessageInterceptor i : interceptors) {
            if (message instanceof EmptyMessage) {
                i.sendEmpty((EmptyMessage) message);
            } else if (message instanceof Response) {
                i.sendResponse((Response) message);
            } else {
                i.sendRequest((Request) message);
            }
        }
    }

    private void send(Exchange exchange, Message m, SendCallback callback) {
        transmit(exchange, m.type(), encode(m), callback);
    }

    private void transmit(Exchange exchange, Type type, byte[] bytes, SendCallback callback) {
        counters.sent(type);
        connector.send(RawData.outbound(bytes, exchange.peer(), callback));
    }

    private byte[] encode(Message m) {
        return serializer.serialize(m);
    }

    private int nextMid(Exchange exchange) {
        try {
            return mids.nextMid(exchange.peer().peer(), clock.nanoTime());
        } catch (MidExhaustedException e) {
            counters.increment(Counter.SEND_ERRORS);
            exchange.fail(e);
            return -1;
        }
    }

    /** Fails a client exchange whose request the connector could not send. */
    private final class FailExchange implements SendCallback {
        private final Exchange exchange;

        FailExchange(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public void onSent() {
        }

        @Override
        public void onFailed(Throwable cause) {
            counters.increment(Counter.SEND_ERRORS);
            exchange.execute(() -> exchange.fail(new ExchangeFailedException("cannot send to " + exchange.peer().peer()
                    + ": " + cause.getMessage(), cause)));
        }
    }
}
