package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.Overload;
import io.stagecoach.core.network.internal.dedup.DedupResult;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.time.Clock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive path of an endpoint (RFC 7252 §4): parse, refuse what must be refused, answer
 * duplicates from the deduplication store, match the rest to its exchange with one lookup, and
 * pass it up the stack holding the exchange.
 *
 * <table>
 *   <caption>What comes back for bad or unmatched input</caption>
 *   <tr><th>received</th><th>answer</th></tr>
 *   <tr><td>version ≠ 1</td><td>nothing (§3)</td></tr>
 *   <tr><td>malformed CON</td><td>RST, or 4.00 when header, token and options parsed (§4.2)</td></tr>
 *   <tr><td>malformed NON</td><td>nothing (§4.3)</td></tr>
 *   <tr><td>CON request with an unrecognized or invalid critical option</td><td>4.02 (§5.4.1)</td></tr>
 *   <tr><td>Empty CON (ping)</td><td>RST (§4.3)</td></tr>
 *   <tr><td>ACK/RST matching nothing</td><td>nothing</td></tr>
 *   <tr><td>CON/NON response matching nothing</td><td>RST, nothing remembered (§4.2, §4.3; RFC 7641 §3.6);
 *       with an observation store, first a bounded lookup of its token ({@link ObservationMatcher})</td></tr>
 *   <tr><td>new CON request from a source over its dedup quota</td><td>5.03 with Max-Age (a full store
 *       evicts from its heaviest source instead)</td></tr>
 *   <tr><td>CON request over a {@link RequestLimits} limit</td><td>4.00 or 4.04 (NON: nothing)</td></tr>
 *   <tr><td>request on which a layer throws</td><td>5.00, exchange ended</td></tr>
 * </table>
 */
final class Inbound {

    private static final Logger LOG = LoggerFactory.getLogger(Inbound.class);

    private final UdpMessageParser parser = new UdpMessageParser();
    private final LayerStack stack;
    /** Whether released exchanges may be reused: no layer keeps exchanges beyond their state. */
    private final boolean reuseExchanges;
    private final ExchangeStore store;
    private final DeduplicationStore dedup;
    private final Outbox outbox;
    private final EndpointCounters counters;
    // an array: a for-each over a List builds an iterator per message (24 B)
    private final MessageInterceptor[] interceptors;
    private final long overloadMaxAgeSeconds;
    private final RequestLimits limits;
    private final RecognizedOptions recognized;
    private final BanLog banLog;
    /** Matches notifications through the observation store; {@code null} without one. */
    private volatile ObservationMatcher observations;
    private final Consumer<Exchange> receiveInStack = this::receiveInStack; // one for all requests
    /** One stack trace per period for a throwing layer; every failure is counted in STACK_ERRORS. */
    private final LogThrottle failureLog;
    static final Duration FAILURE_LOG_PERIOD = Duration.ofSeconds(10);
    /** Datagrams up to this size are parsed in place (options read from the datagram). */
    static final int SHARE_DATAGRAMS_UP_TO = 256;

    Inbound(LayerStack stack, ExchangeStore store, DeduplicationStore dedup, Outbox outbox,
            EndpointCounters counters, List<MessageInterceptor> interceptors, long overloadMaxAgeSeconds,
            RequestLimits limits, RecognizedOptions recognized, BanLog banLog, Clock clock) {
        this.failureLog = new LogThrottle(clock, FAILURE_LOG_PERIOD);
        this.stack = stack;
        this.reuseExchanges = !stack.keepsExchanges();
        this.store = store;
        this.dedup = dedup;
        this.outbox = outbox;
        this.counters = counters;
        this.interceptors = interceptors.toArray(new MessageInterceptor[0]);
        this.overloadMaxAgeSeconds = overloadMaxAgeSeconds;
        this.limits = limits;
        this.recognized = recognized;
        this.banLog = banLog;
    }

    /** Unmatched notifications are looked up through {@code matcher} from now on. */
    void matchObservations(ObservationMatcher matcher) {
        this.observations = matcher;
    }

    void receive(RawData raw) {
        byte[] datagram = raw.sharedBytes();
        receive(datagram, 0, datagram.length, raw.context(), raw.receiveNanos(), true);
    }

    /**
     * A datagram the connector lends for the call ({@code RawDataReceiver.receiveDatagram}): the
     * message copies what it keeps (its options' span, token and payload), so neither a
     * {@link RawData} nor an array of the whole datagram is needed.
     */
    void receiveLent(byte[] buffer, int offset, int length, EndpointContext sender, long receiveNanos) {
        receive(buffer, offset, length, sender, receiveNanos, false);
    }

    private void receive(byte[] buf, int offset, int length, EndpointContext sender, long receiveNanos, boolean owned) {
        Message message;
        try {
            // an owned datagram (sharedBytes: no copy, never modified) lets the message read its
            // option values from it (parseShared, ~64 B less). A message kept long (an observe
            // relation's request) then keeps the whole datagram, payload included: for large
            // datagrams the options are copied instead. A lent one is read before it is reused.
            message = !owned ? parser.parseLent(buf, offset, length, sender, receiveNanos)
                    : length <= SHARE_DATAGRAMS_UP_TO ? parser.parseShared(buf, sender, receiveNanos)
                    : parser.parse(buf, sender, receiveNanos);
        } catch (MessageFormatException e) {
            refuse(sender, e);
            return;
        }
        counters.received(message.type());
        if (message instanceof Request) {
            receiveRequest((Request) message, length);
        } else if (message instanceof Response) {
            receiveResponse((Response) message);
        } else {
            receiveEmpty((EmptyMessage) message);
        }
    }

    private void refuse(EndpointContext from, MessageFormatException e) {
        if (e.isSilentDrop()) {
            counters.increment(Counter.IGNORED_VERSION);
            return;
        }
        counters.increment(Counter.MALFORMED);
        banLog.malformed(from.peer(), e.reason());
        if (e.type() != Type.CON || !e.hasMid()) {
            return; // a NON, ACK or RST that cannot be parsed is dropped (RFC 7252 §4.2, §4.3)
        }
        if (e.optionsParsed() && e.code() != null && e.code().isRequest()) {
            Response badRequest = Response.builder(Code.BAD_REQUEST).type(Type.ACK).mid(e.mid())
                    .token(e.token()).payload(e.reason()).peer(from).build();
            outbox.sendDirect(from, badRequest);
        } else {
            outbox.sendDirect(from, EmptyMessage.of(Type.RST, e.mid()).withPeer(from));
        }
    }

    private void receiveRequest(Request request, int datagramBytes) {
        for (MessageInterceptor i : interceptors) {
            i.receiveRequest(request);
        }
        EndpointContext peer = request.peer();
        if (request.type() == Type.ACK || request.type() == Type.RST) {
            counters.increment(Counter.MALFORMED); // a request cannot travel in an ACK or RST (§4.2, §4.3)
            banLog.malformed(peer.peer(), "request in a " + request.type() + " (RFC 7252 4.2, 4.3)");
            return;
        }
        Option bad = unrecognizedCritical(request);
        if (bad != null) {
            counters.increment(Counter.BAD_OPTION);
            if (request.type() == Type.CON) {
                String why = "Unrecognized option " + bad.number();
                outbox.sendDirect(peer, Response.forRequest(request, Code.BAD_OPTION).type(Type.ACK)
                        .mid(request.mid()).payload(why).build());
            }
            return; // a NON with such an option is rejected silently (§5.4.1)
        }
        RequestLimits.Refusal over = limits.check(request);
        if (over != null) {
            counters.increment(Counter.LIMIT_EXCEEDED);
            banLog.limitExceeded(peer.peer(), over.reason());
            if (request.type() == Type.CON) {
                outbox.sendDirect(peer, Response.forRequest(request, over.code()).type(Type.ACK)
                        .mid(request.mid()).payload(over.reason()).build());
            }
            return; // refused before deduplication and the stack: it costs no state; a NON is dropped
        }
        boolean con = request.type() == Type.CON;
        DedupResult seen = dedup.lookupOrInsert(peer.peer(), request.mid(), con, isIdempotent(request.code()),
                request.receiveNanos());
        switch (seen.status()) {
            case NEW:
                Exchange exchange = reuseExchanges ? Exchange.remote(request, peer, request.receiveNanos())
                        : new Exchange(Exchange.Origin.REMOTE, request, peer, request.receiveNanos(), null);
                exchange.setRequestBytes(datagramBytes);
                exchange.executeWith(receiveInStack);
                if (reuseExchanges) {
                    exchange.recycle(); // when the server released it: answered at once, kept by nobody
                }
                return;
            case OVERLOADED:
                counters.increment(Counter.REJECTED_OVERLOAD);
                if (con) {
                    outbox.sendDirect(peer, Overload.serviceUnavailable(request, overloadMaxAgeSeconds)
                            .type(Type.ACK).mid(request.mid()).build());
                }
                return;
            default:
                answerDuplicate(peer, request.mid(), seen);
        }
    }

    /**
     * Passes a new request up the stack. A layer that throws must not leave the exchange open: the
     * dedup entry would stay "in progress" and swallow every retransmission (§4.5) until it
     * expires, so the client would time out. Instead the request is answered 5.00 Internal Server
     * Error (§5.9.3.1) through the stack, which records the reply for retransmissions and ends
     * the exchange.
     */
    private void receiveInStack(Exchange exchange) {
        Request request = exchange.request();
        try {
            stack.receiveRequest(exchange, request);
        } catch (RuntimeException e) {
            counters.increment(Counter.STACK_ERRORS);
            long held = failureLog.tryAcquire();
            if (held >= 0) {
                // the exception's text may quote the request: escaped here, the stack trace at DEBUG
                LOG.warn("a layer threw on {} from {}; answering 5.00 ({} more since the last report;"
                        + " all are counted in STACK_ERRORS): {}", request, exchange.peer(), held,
                        SafeText.forLog(e.toString()));
                LOG.debug("the layer's stack trace", e);
            }
            if (exchange.isComplete()) {
                return;
            }
            try {
                stack.sendResponse(exchange, Response.forRequest(request, Code.INTERNAL_SERVER_ERROR)
                        .peer(exchange.peer()).build());
            } catch (RuntimeException again) {
                LOG.warn("could not answer 5.00 on {}; ending the exchange", exchange, again);
                exchange.complete();
            }
        }
    }

    private void receiveResponse(Response response) {
        for (MessageInterceptor i : interceptors) {
            i.receiveResponse(response);
        }
        receiveResponse(response, false);
    }

    /** @param lookedUp whether the observation store was asked about this response already */
    private void receiveResponse(Response response, boolean lookedUp) {
        InetSocketAddress peer = response.peer().peer();
        Exchange exchange;
        if (response.type() == Type.ACK) {
            exchange = store.findByMid(peer, response.mid());
            if (exchange == null || !exchange.isLocal() || Ping.isPing(exchange)
                    || !exchange.currentRequest().token().equals(response.token())) {
                counters.increment(Counter.UNMATCHED); // late or foreign ACK (§4.2): ignore
                return;
            }
        } else if (response.type() == Type.RST) {
            counters.increment(Counter.MALFORMED); // a RST carries no response (§4.2)
            banLog.malformed(peer, "response in a RST (RFC 7252 4.2)");
            return;
        } else {
            exchange = store.findByToken(peer, response.token());
            if (exchange == null) {
                ObservationMatcher m = observations;
                if (m != null && !lookedUp) {
                    // Perhaps a notification of an observation another node registered, or this
                    // one before a restart (docs/cluster.md): the store decides, within budgets.
                    m.lookUp(response, r -> receiveResponse(r, true), this::unmatched);
                    return;
                }
                unmatched(response);
                return;
            }
            DedupResult seen = dedup.lookupOrInsert(peer, response.mid(), response.type() == Type.CON, false,
                    response.receiveNanos());
            if (seen.status() != DedupResult.Status.NEW) {
                answerDuplicate(response.peer(), response.mid(), seen);
                return;
            }
        }
        Exchange matched = exchange;
        matched.execute(() -> {
            if (!matched.isComplete()) {
                stack.receiveResponse(matched, response);
            } else if (response.type() == Type.CON) {
                outbox.sendDirect(response.peer(), EmptyMessage.ackFor(response));
            }
        });
    }

    /**
     * Nobody waits for {@code response}, e.g. a notification after a cancel (RFC 7641 §3.6): RST.
     * It is not remembered: unsolicited responses from a flood must cost no state.
     */
    private void unmatched(Response response) {
        counters.increment(Counter.UNMATCHED);
        outbox.sendUnrecorded(response.peer(), EmptyMessage.rstFor(response));
    }

    private void receiveEmpty(EmptyMessage message) {
        for (MessageInterceptor i : interceptors) {
            i.receiveEmpty(message);
        }
        switch (message.type()) {
            case CON:
                // CoAP ping (§4.3): answered with RST, never remembered.
                outbox.sendDirect(message.peer(), EmptyMessage.rstFor(message));
                return;
            case NON:
                counters.increment(Counter.MALFORMED); // an Empty NON is not defined (§4.1)
                banLog.malformed(message.peer().peer(), "Empty NON message (RFC 7252 4.1)");
                return;
            default:
                Exchange exchange = store.findByMid(message.peer().peer(), message.mid());
                if (exchange == null) {
                    counters.increment(Counter.UNMATCHED);
                    return;
                }
                AddressProbe[] answered = new AddressProbe[1];
                exchange.execute(() -> {
                    if (exchange.isComplete()) {
                        return;
                    }
                    if (Ping.isPing(exchange)) {
                        exchange.complete(); // the RST (or an ACK) answering our ping: the peer is alive
                        answered[0] = exchange.get(AddressProbe.OF_PING);
                    } else {
                        stack.receiveEmpty(exchange, message);
                    }
                });
                AddressProbe probe = answered[0];
                if (probe != null) {
                    // an address probe answered: its exchange may send what the limit held back,
                    // taken after the ping's lock is released (the outbox takes them in the other order)
                    probe.held().execute(() -> outbox.probeAnswered(probe));
                }
        }
    }

    private void answerDuplicate(EndpointContext peer, int mid, DedupResult seen) {
        counters.increment(Counter.DUPLICATES);
        if (seen.status() != DedupResult.Status.DONE) {
            return; // still being processed: the answer will come (§4.5)
        }
        if (seen.emptyAck()) {
            outbox.resendEmptyAck(peer, mid);
        } else if (seen.reply() != null) {
            outbox.resend(peer, seen.reply());
        }
    }

    /**
     * The first critical option that neither the endpoint nor a layer of its stack processes, or
     * {@code null} (see {@link RecognizedOptions}). Walks the set by position: an iterator would
     * build an {@code Option} (and copy its value) per option.
     */
    private Option unrecognizedCritical(Request request) {
        OptionSet options = request.options();
        for (int i = 0; i < options.size(); i++) {
            int number = options.number(i);
            if (!OptionNumber.isCritical(number)) {
                continue;
            }
            // isValid also refuses a repeated non-repeatable option: a supernumerary critical
            // occurrence is treated like an unrecognized one (RFC 7252 §5.4.5)
            if (!recognized.contains(number) || !options.isValid(i)) {
                return options.option(i);
            }
        }
        return null;
    }

    static boolean isIdempotent(Code method) {
        return method == Code.GET || method == Code.PUT || method == Code.DELETE || method == Code.FETCH;
    }
}
