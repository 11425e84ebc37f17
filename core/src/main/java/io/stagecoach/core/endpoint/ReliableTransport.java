package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.ReliableTransportOptions;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.ReliableFraming;
import io.stagecoach.core.codec.TcpMessageParser;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 500 lines: the RFC 8323 endpoint's per-connection state machine (CSM, Ping/Pong,
// Release, Abort, token matching); connections, signals and framing are already split out.
/**
 * The message path of an endpoint on a {@link StreamConnector}: CoAP over TCP, TLS and
 * WebSockets (RFC 8323). It takes the place of {@link Inbound} and {@link Outbox}; the stack
 * above it has no reliability layer.
 *
 * <ul>
 *   <li><b>Connections are peers</b> (§3): the state of each ({@link ReliableConnection}, in
 *       {@link ReliableConnections}) is kept by its
 *       peer address, from the first request sent to it (client) or its opening (server) to its
 *       close, which fails every exchange still open on it, and so ends its observe relations.</li>
 *   <li><b>CSM</b> (§5.3): ours is the first message both ways (the connector writes it before
 *       anything queued), announcing {@code tcp.max-message-size} and, when BERT is on,
 *       Block-Wise-Transfer; the peer's CSM sets what we may send (1152 bytes until then). A
 *       first message that is not a CSM, or no CSM within {@code tcp.csm-timeout}, aborts.</li>
 *   <li><b>Signals</b> (§5): Ping is answered with Pong (with Custody: once every request received
 *       before it has been answered); Pong completes our {@link #ping}; Release makes the
 *       connection refuse new requests and close once its exchanges are done, and its Hold-Off
 *       keeps new requests to that peer failing for that long; a client sends new requests to its
 *       Alternative-Address instead ({@link #destination}); Abort closes it
 *       ({@link ReliableSignals}).</li>
 *   <li><b>Matching</b>: by token only; no message IDs, no deduplication, no retransmission, no
 *       NSTART. A server exchange ends with its final response; an established observe relation
 *       keeps it open until the relation or the connection ends.</li>
 *   <li><b>Refusals</b>: a frame the codec refuses with an abort verdict is answered with Abort
 *       (diagnostic, Bad-CSM-Option) and the connection closed; an Empty message is ignored (§3.4);
 *       a request with an unrecognized critical option gets 4.02, one over a
 *       {@link RequestLimits} limit 4.00 / 4.04; a message larger than the peer's Max-Message-Size
 *       is not sent (a request's exchange fails, a response becomes 5.00).</li>
 *   <li><b>Timeouts</b>, by one sweep on the endpoint's scheduler: missing CSM, a frame
 *       incomplete for {@code tcp.frame-timeout}, idle connections ({@code tcp.idle-timeout}:
 *       Release, then close) ({@link ReliableSweep}).</li>
 * </ul>
 *
 * <p>Messages are processed on the connector's I/O thread of their connection, in order, with
 * no hand-off: the order of a connection (CSM first, Ping after the requests it vouches for) is
 * the order of processing.
 */
final class ReliableTransport implements ConnectionHandler, LayerStack.Outbox {

    private static final Logger LOG = LoggerFactory.getLogger(ReliableTransport.class);

    private final StreamConnector connector;
    private final ReliableFraming framing;
    private final TcpMessageParser parser;
    private final TcpMessageSerializer serializer;
    private final ExchangeStore store;
    private final EndpointCounters counters;
    private final MessageInterceptor[] interceptors;
    private final Scheduler scheduler;
    private final RequestLimits limits;
    private final BanLog banLog;
    private final int maxMessageSize;
    private final boolean bert;
    private final ReliableConnections connections = new ReliableConnections();
    private final ReleaseRedirects redirects;
    private final ReliableControl control;
    private final ReliableSignals signals;
    private final ReliableSweep sweeper;
    private final AtomicLong pingTokens = new AtomicLong(1);
    private final LongAdder abortsSent;
    private final LongAdder requestsReceived;
    private final LongAdder requestsSent;
    private final LongAdder responsesSent;
    private final LogThrottle failureLog;
    private volatile LayerStack stack;
    private volatile RecognizedOptions recognized;
    private volatile Cancellable sweep;
    private final Consumer<Exchange> receiveInStack = this::receiveInStack;

    /** @param defaultPort the port of the endpoint's scheme, for an Alternative-Address without one */
    ReliableTransport(StreamConnector connector, Configuration config, ExchangeStore store, EndpointCounters counters,
            List<MessageInterceptor> interceptors, Scheduler scheduler, BanLog banLog, boolean bert, int defaultPort) {
        this.connector = connector;
        this.framing = connector.isMessageTransport() ? ReliableFraming.WEBSOCKET : ReliableFraming.TCP;
        this.maxMessageSize = config.get(TcpConfig.MAX_MESSAGE_SIZE);
        this.parser = new TcpMessageParser(framing, maxMessageSize);
        this.serializer = new TcpMessageSerializer(framing);
        this.store = store;
        this.counters = counters;
        this.interceptors = interceptors.toArray(new MessageInterceptor[0]);
        this.scheduler = scheduler;
        this.limits = RequestLimits.from(config);
        this.banLog = banLog;
        this.bert = bert && maxMessageSize > TcpMessageParser.DEFAULT_MAX_MESSAGE_SIZE;
        this.abortsSent = counters.counter("tcp.aborts_sent");
        this.requestsReceived = counters.counter("tcp.requests_received");
        this.requestsSent = counters.counter("tcp.requests_sent");
        this.responsesSent = counters.counter("tcp.responses_sent");
        this.control = new ReliableControl(connector, serializer, abortsSent);
        this.redirects = connector.isClient() && config.get(TcpConfig.FOLLOW_ALTERNATIVE_ADDRESS)
                ? new ReleaseRedirects() : null;
        this.signals = new ReliableSignals(connections, redirects, defaultPort, control, scheduler,
                counters.counter("tcp.signals_received"), counters.counter("tcp.aborts_received"));
        this.sweeper = new ReliableSweep(connections, control, scheduler, config.get(TcpConfig.CSM_TIMEOUT).toNanos(),
                config.get(TcpConfig.FRAME_TIMEOUT).toNanos(), config.get(TcpConfig.IDLE_TIMEOUT).toNanos());
        this.failureLog = new LogThrottle(scheduler, Inbound.FAILURE_LOG_PERIOD);
        counters.gauge("tcp.connections", connector::connections);
        connector.setConnectionHandler(this);
    }

    /** Called once the stack exists: the layers above and the options they recognize. */
    void attach(LayerStack stack, RecognizedOptions recognized) {
        this.stack = stack;
        this.recognized = recognized;
    }

    /** Whether BERT (RFC 8323 §6) is offered in our CSM and used with peers that offer it. */
    boolean bert() {
        return bert;
    }

    /**
     * BERT with the peer of {@code exchange} for the blockwise layer: {@code -1} when off, {@code 0} when we accept
     * BERT but the peer's CSM did not offer it (no Block-Wise-Transfer, or Max-Message-Size of
     * 1152 or less), else how many 1024-byte blocks fit one message within its Max-Message-Size
     * (leaving 256 bytes for header and options).
     */
    int bertBlocks(Exchange exchange) {
        if (!bert) {
            return -1;
        }
        ReliableConnection c = connectionOf(exchange);
        if (c == null || !c.peerBlockWise || c.peerMaxMessageSize <= TcpMessageParser.DEFAULT_MAX_MESSAGE_SIZE) {
            return 0;
        }
        return (int) Math.max(1, Math.min(1024, (c.peerMaxMessageSize - 256) / 1024));
    }

    /**
     * Where a new request for {@code peer} goes: {@code peer} itself, or the address its Release
     * named as Alternative-Address (RFC 8323 §5.5) when this client follows it.
     */
    EndpointContext destination(EndpointContext peer) {
        if (redirects == null) {
            return peer;
        }
        InetSocketAddress to = redirects.destination(peer.peer());
        return to.equals(peer.peer()) ? peer : EndpointContext.of(to);
    }

    void start() {
        Duration period = sweeper.period();
        sweep = scheduler.scheduleAtFixedRate(sweeper::run, period, period);
    }

    void stop() {
        Cancellable s = sweep;
        if (s != null) {
            s.cancel();
            sweep = null;
        }
        for (ReliableConnection c : List.copyOf(connections.all())) {
            closed(c);
        }
    }

    /** Connections this endpoint keeps state for (open or being opened). */
    int connections() {
        return connections.size();
    }

    /** The state of the connection with {@code peer}, or {@code null} (tests). */
    ReliableConnection connection(InetSocketAddress peer) {
        return connections.get(peer);
    }

    // ------------------------------------------------------------------ connection events

    @Override
    public StreamFramer opened(EndpointContext context) {
        long now = scheduler.nanoTime();
        ReliableConnection c = connections.getOrCreate(context.peer());
        c.context = context;
        c.lastActivityNanos = now;
        c.openedNanos = now;
        LOG.debug("{} open", c);
        control.send(context, SignalingMessage.csm(maxMessageSize, bert));
        return framing == ReliableFraming.TCP
                ? new ReliableFramer(c, maxMessageSize, serializer, scheduler, counters, abortsSent, banLog) : null;
    }

    /** The connection's state, handed back with each of its frames to {@link #receive}. */
    @Override
    public Object attachment(EndpointContext context) {
        return connections.get(context.peer());
    }

    @Override
    public void closed(EndpointContext context) {
        ReliableConnection c = connections.get(context.peer());
        Long id = context.attribute(StreamConnector.CONNECTION_ID);
        if (c != null && (c.context == null || id == null
                || id.equals(c.context.attribute(StreamConnector.CONNECTION_ID)))) {
            closed(c);
        }
    }

    private void closed(ReliableConnection c) {
        if (!connections.remove(c)) {
            return;
        }
        LOG.debug("{} closed", c);
        ExchangeFailedException cause = new ExchangeFailedException("connection to " + c.peer + " closed");
        for (Exchange e : c.exchanges.snapshot()) {
            e.execute(() -> e.fail(cause));
        }
        for (Exchange e : List.copyOf(c.pings.values())) {
            e.execute(() -> e.fail(cause));
        }
    }

    // ------------------------------------------------------------------ receiving

    /** The connector's receiver: one whole frame, on its connection's I/O thread. */
    void receive(RawData raw) {
        // the connection travels with the frame (attachment): no lookup by address per frame
        ReliableConnection c = raw.attachment() instanceof ReliableConnection a ? a : connections.get(raw.context().peer());
        if (c == null || c.closing || c.removed) {
            return; // closed meanwhile, or aborting: nothing more is processed (RFC 8323 §5.6)
        }
        c.lastActivityNanos = raw.receiveNanos();
        byte[] frame = raw.sharedBytes();
        try {
            if (parser.isSignaling(frame)) {
                signals.receive(c, parser.parseSignal(frame));
                return;
            }
            if (!c.csmReceived) {
                control.abort(c, -1, "the first message must be a CSM (RFC 8323 5.3)");
                return;
            }
            Message m = parser.parseMessageShared(frame, c.context, raw.receiveNanos());
            if (m instanceof Request request) {
                receiveRequest(c, request);
            } else if (m instanceof Response response) {
                receiveResponse(c, response);
            } else {
                receiveEmpty((EmptyMessage) m);
            }
        } catch (MessageFormatException e) {
            counters.increment(Counter.MALFORMED);
            banLog.malformed(c.peer, e.reason());
            if (e.isAbort()) {
                control.abort(c, e.abortSignal());
            }
            // IGNORE: an Empty message with content is skipped (RFC 8323 §3.4)
        }
    }

    private void receiveRequest(ReliableConnection c, Request request) {
        for (MessageInterceptor i : interceptors) {
            i.receiveRequest(request);
        }
        requestsReceived.increment();
        Option bad = unrecognizedCritical(request);
        if (bad != null) {
            counters.increment(Counter.BAD_OPTION);
            sendDirect(c, Response.forRequest(request, Code.BAD_OPTION)
                    .payload("Unrecognized option " + bad.number()).peer(c.context).build());
            return;
        }
        RequestLimits.Refusal over = limits.check(request);
        if (over != null) {
            counters.increment(Counter.LIMIT_EXCEEDED);
            banLog.limitExceeded(c.peer, over.reason());
            sendDirect(c, Response.forRequest(request, over.code()).payload(over.reason()).peer(c.context).build());
            return;
        }
        Exchange exchange = new Exchange(Exchange.Origin.REMOTE, request, c.context, request.receiveNanos(), null);
        track(c, exchange);
        exchange.executeWith(receiveInStack);
    }

    /** As {@link Inbound}'s: a throwing layer gets the request answered 5.00, never left open. */
    private void receiveInStack(Exchange exchange) {
        Request request = exchange.request();
        try {
            stack.receiveRequest(exchange, request);
        } catch (RuntimeException e) {
            counters.increment(Counter.STACK_ERRORS);
            long held = failureLog.tryAcquire();
            if (held >= 0) {
                LOG.warn("a layer threw on {} from {}; answering 5.00 ({} more since the last report)",
                        request, exchange.peer(), held, e);
            }
            if (!exchange.isComplete()) {
                try {
                    stack.sendResponse(exchange, Response.forRequest(request, Code.INTERNAL_SERVER_ERROR)
                            .peer(exchange.peer()).build());
                } catch (RuntimeException again) {
                    exchange.complete();
                }
            }
        }
    }

    private void receiveResponse(ReliableConnection c, Response response) {
        for (MessageInterceptor i : interceptors) {
            i.receiveResponse(response);
        }
        Exchange exchange = store.findByToken(c.peer, response.token());
        if (exchange == null) {
            counters.increment(Counter.UNMATCHED); // e.g. a notification after a cancel: no RST over TCP
            return;
        }
        exchange.execute(() -> {
            if (!exchange.isComplete()) {
                stack.receiveResponse(exchange, response);
            }
        });
    }

    private void receiveEmpty(EmptyMessage message) {
        for (MessageInterceptor i : interceptors) {
            i.receiveEmpty(message);
        }
        // RFC 8323 §3.4: an Empty message (a keepalive at most) is ignored
    }

    private Option unrecognizedCritical(Request request) {
        OptionSet options = request.options();
        for (int i = 0; i < options.size(); i++) {
            int number = options.number(i);
            if (!OptionNumber.isCritical(number)) {
                continue;
            }
            boolean valid = bert ? ReliableTransportOptions.isValid(options, i) : options.isValid(i);
            if (!recognized.contains(number) || !valid) {
                return options.option(i);
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ sending (bottom of the stack)

    @Override
    public void sendRequest(Exchange exchange, Request request) {
        long left = connections.holdOffLeft(exchange.peer().peer(), scheduler.nanoTime());
        if (left > 0) {
            exchange.fail(new ExchangeFailedException(exchange.peer().peer() + " asked to be left alone for "
                    + Duration.ofNanos(left).toSeconds() + " s more (Release with Hold-Off, RFC 8323 5.5)"));
            return;
        }
        ReliableConnection c = connections.getOrCreate(exchange.peer().peer());
        if (c.released || c.closing) {
            exchange.fail(new ExchangeFailedException("the connection to " + c.peer
                    + " is being released or closed by the peer; try again later"));
            return;
        }
        if (!fits(c, request)) {
            exchange.fail(new ExchangeFailedException("request of " + serializer.encodedLength(request)
                    + " bytes exceeds the Max-Message-Size " + c.peerMaxMessageSize + " of " + c.peer));
            return;
        }
        track(c, exchange);
        for (MessageInterceptor i : interceptors) {
            i.sendRequest(request);
        }
        requestsSent.increment();
        connector.send(RawData.outbound(serializer.serialize(request), exchange.peer(),
                exchange.isLocal() ? new FailExchange(exchange) : null));
    }

    @Override
    public void sendResponse(Exchange exchange, Response response) {
        ReliableConnection c = connectionOf(exchange);
        Response r = response;
        if (c != null && !fits(c, r)) {
            LOG.debug("response of {} bytes exceeds the Max-Message-Size {} of {}; answering 5.00",
                    serializer.encodedLength(r), c.peerMaxMessageSize, c.peer);
            r = Response.forRequest(exchange.request(), Code.INTERNAL_SERVER_ERROR)
                    .payload("response exceeds the peer's Max-Message-Size").peer(exchange.peer()).build();
        }
        exchange.setCurrentResponse(r);
        for (MessageInterceptor i : interceptors) {
            i.sendResponse(r);
        }
        responsesSent.increment();
        connector.send(RawData.outbound(serializer.serialize(r), exchange.peer(), null));
        boolean notification = r.code().isSuccess() && r.options().has(OptionNumber.OBSERVE);
        if (!exchange.isLocal() && !notification) {
            exchange.complete(); // no ACK to wait for: the exchange ends with its final response
        }
        if (c != null) {
            signals.answered(c, exchange);
        }
    }

    @Override
    public void sendEmpty(Exchange exchange, EmptyMessage message) {
        // ACK and RST do not exist over reliable transports (RFC 8323 §3.2): nothing to send
    }

    /** A response outside the stack (4.02, 4.00, 4.04 for refused requests). */
    private void sendDirect(ReliableConnection c, Response response) {
        for (MessageInterceptor i : interceptors) {
            i.sendResponse(response);
        }
        connector.send(RawData.outbound(serializer.serialize(response), c.context, null));
    }

    /**
     * The connection of {@code exchange}: the one its request came on (kept on the exchange, so a
     * server finds it without a lookup by address per request: with 1000 connections, such
     * lookups were 9 % of the I/O thread's Java time), else the one with its peer.
     */
    private ReliableConnection connectionOf(Exchange exchange) {
        return exchange.transportHook() instanceof Tracked t ? t.connection : connections.get(exchange.peer().peer());
    }

    private boolean fits(ReliableConnection c, Message m) {
        return serializer.encodedLength(m) <= c.peerMaxMessageSize;
    }

    /**
     * Adds {@code exchange} to the open exchanges of {@code c} until it completes. One object per
     * exchange does it (the list entry, the completion hook, the connection); a client exchange
     * that sends again on the same connection (the next block) stays tracked once.
     */
    private void track(ReliableConnection c, Exchange exchange) {
        Runnable current = exchange.transportHook();
        if (current == null) {
            Tracked t = new Tracked(exchange, c);
            c.exchanges.add(t);
            exchange.setTransportHook(t);
        } else if (!(current instanceof Tracked t && t.connection == c)) {
            Tracked t = new Tracked(exchange, c); // another connection to the same peer: tracked there too
            c.exchanges.add(t);
            exchange.whenComplete(t);
        }
    }

    /** An exchange open on a connection, and what its completion does there. */
    private final class Tracked extends OpenExchanges.Entry implements Runnable {
        final ReliableConnection connection;

        Tracked(Exchange exchange, ReliableConnection connection) {
            super(exchange);
            this.connection = connection;
        }

        @Override
        public void run() {
            ReliableConnection c = connection;
            c.exchanges.remove(this);
            if (!exchange.isLocal()) {
                signals.answered(c, exchange);
            }
            if (c.released) {
                control.closeWhenDone(c);
            }
        }
    }

    // ------------------------------------------------------------------ ping

    /**
     * Sends a Ping (RFC 8323 §5.4) to {@code peer} (connecting first if this is a client without
     * a connection); the exchange completes on the Pong and fails after {@code timeout}.
     */
    Exchange ping(EndpointContext peer, Duration timeout) {
        Request placeholder = Request.get().peer(peer).build();
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, placeholder, peer, scheduler.nanoTime(), null);
        ReliableConnection c = connections.getOrCreate(peer.peer());
        Token token = Token.ofLong(pingTokens.getAndIncrement());
        exchange.execute(() -> {
            c.pings.put(token, exchange);
            Cancellable timer = scheduler.schedule(() -> exchange.execute(() -> exchange.fail(
                    new ExchangeTimeoutException("no Pong from " + peer.peer() + " within " + timeout.toMillis()
                            + " ms"))), timeout);
            exchange.whenComplete(() -> {
                timer.cancel();
                c.pings.remove(token, exchange);
            });
            connector.send(RawData.outbound(serializer.serialize(SignalingMessage.ping(token, false)),
                    c.context != null ? c.context : peer, new FailExchange(exchange)));
        });
        return exchange;
    }

    /** Fails a local exchange whose message the connector could not send (no connection, closed...). */
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
            ReliableConnection c = connections.get(exchange.peer().peer());
            if (c != null && !c.isOpen() && c.exchanges.isEmpty() && c.pings.isEmpty()) {
                connections.remove(c); // the connection never opened
            }
        }
    }
}
