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
import io.stagecoach.core.codec.TcpFrameSplitter;
import io.stagecoach.core.codec.TcpMessageParser;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.FramingException;
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
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The message path of an endpoint on a {@link StreamConnector}: CoAP over TCP, TLS and
 * WebSockets (RFC 8323). It takes the place of {@link Inbound} and {@link Outbox}; the stack
 * above it has no reliability layer.
 *
 * <ul>
 *   <li><b>Connections are peers</b> (§3): the state of each ({@link Connection}) is kept by its
 *       peer address, from the first request sent to it (client) or its opening (server) to its
 *       close, which fails every exchange still open on it, and so ends its observe relations.</li>
 *   <li><b>CSM</b> (§5.3): ours is the first message both ways (the connector writes it before
 *       anything queued), announcing {@code tcp.max-message-size} and, when BERT is on,
 *       Block-Wise-Transfer; the peer's CSM sets what we may send (1152 bytes until then). A
 *       first message that is not a CSM, or no CSM within {@code tcp.csm-timeout}, aborts.</li>
 *   <li><b>Signals</b> (§5): Ping is answered with Pong (with Custody: once every request received
 *       before it has been answered); Pong completes our {@link #ping}; Release makes the
 *       connection refuse new requests and close once its exchanges are done, and its Hold-Off
 *       keeps new requests to that peer failing for that long (Alternative-Address is only
 *       logged); Abort closes it.</li>
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
 *       Release, then close).</li>
 * </ul>
 *
 * <p>Messages are processed on the connector's I/O thread of their connection, in order, with
 * no hand-off: the order of a connection (CSM first, Ping after the requests it vouches for) is
 * the order of processing.
 */
final class ReliableTransport implements ConnectionHandler, LayerStack.Outbox {

    private static final Logger LOG = LoggerFactory.getLogger(ReliableTransport.class);

    /** Per connection (peer address) state; fields written on its I/O thread, read by the sweep. */
    static final class Connection {
        final InetSocketAddress peer;
        volatile EndpointContext context; // with the connection id, once open
        volatile long openedNanos = -1;
        volatile boolean csmReceived;
        volatile long peerMaxMessageSize = TcpMessageParser.DEFAULT_MAX_MESSAGE_SIZE;
        volatile boolean peerBlockWise;
        volatile long lastActivityNanos;
        volatile long partialSinceNanos = -1;
        volatile boolean released;
        volatile boolean closing;
        final Set<Exchange> exchanges = ConcurrentHashMap.newKeySet();
        final ConcurrentHashMap<Token, Exchange> pings = new ConcurrentHashMap<>();
        final List<Custody> custody = new ArrayList<>(0); // guarded by this

        Connection(InetSocketAddress peer) {
            this.peer = peer;
        }

        boolean isOpen() {
            return openedNanos >= 0;
        }

        @Override
        public String toString() {
            return "connection " + (context != null ? context : peer);
        }
    }

    /** A Ping with Custody waiting for the requests received before it (RFC 8323 §5.4.1). */
    private static final class Custody {
        final Token token;
        final Set<Exchange> waitingFor;

        Custody(Token token, Set<Exchange> waitingFor) {
            this.token = token;
            this.waitingFor = waitingFor;
        }
    }

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
    private final long csmTimeoutNanos;
    private final long frameTimeoutNanos;
    private final long idleTimeoutNanos;
    private final Duration sweepPeriod;
    private final ConcurrentHashMap<InetSocketAddress, Connection> connections = new ConcurrentHashMap<>();
    /** Peers whose Release asked us not to come back before a time (Hold-Off, RFC 8323 §5.5). */
    private final ConcurrentHashMap<InetSocketAddress, Long> holdOffUntil = new ConcurrentHashMap<>();
    private static final int MAX_HOLD_OFFS = 10_000;
    private final AtomicLong pingTokens = new AtomicLong(1);
    private final LongAdder signalsReceived;
    private final LongAdder abortsSent;
    private final LongAdder abortsReceived;
    private final LongAdder requestsReceived;
    private final LongAdder requestsSent;
    private final LongAdder responsesSent;
    private final LogThrottle failureLog;
    private volatile LayerStack stack;
    private volatile RecognizedOptions recognized;
    private volatile Cancellable sweep;
    private final Consumer<Exchange> receiveInStack = this::receiveInStack;

    ReliableTransport(StreamConnector connector, Configuration config, ExchangeStore store, EndpointCounters counters,
            List<MessageInterceptor> interceptors, Scheduler scheduler, BanLog banLog, boolean bert) {
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
        this.csmTimeoutNanos = config.get(TcpConfig.CSM_TIMEOUT).toNanos();
        this.frameTimeoutNanos = config.get(TcpConfig.FRAME_TIMEOUT).toNanos();
        this.idleTimeoutNanos = config.get(TcpConfig.IDLE_TIMEOUT).toNanos();
        long shortest = Math.min(csmTimeoutNanos, frameTimeoutNanos);
        if (idleTimeoutNanos > 0) {
            shortest = Math.min(shortest, idleTimeoutNanos);
        }
        this.sweepPeriod = Duration.ofNanos(Math.max(10_000_000L, Math.min(1_000_000_000L, shortest / 4)));
        this.signalsReceived = counters.counter("tcp.signals_received");
        this.abortsSent = counters.counter("tcp.aborts_sent");
        this.abortsReceived = counters.counter("tcp.aborts_received");
        this.requestsReceived = counters.counter("tcp.requests_received");
        this.requestsSent = counters.counter("tcp.requests_sent");
        this.responsesSent = counters.counter("tcp.responses_sent");
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
     * BERT with {@code peer} for the blockwise layer: {@code -1} when off, {@code 0} when we accept
     * BERT but the peer's CSM did not offer it (no Block-Wise-Transfer, or Max-Message-Size of
     * 1152 or less), else how many 1024-byte blocks fit one message within its Max-Message-Size
     * (leaving 256 bytes for header and options).
     */
    int bertBlocks(EndpointContext peer) {
        if (!bert) {
            return -1;
        }
        Connection c = connections.get(peer.peer());
        if (c == null || !c.peerBlockWise || c.peerMaxMessageSize <= TcpMessageParser.DEFAULT_MAX_MESSAGE_SIZE) {
            return 0;
        }
        return (int) Math.max(1, Math.min(1024, (c.peerMaxMessageSize - 256) / 1024));
    }

    void start() {
        sweep = scheduler.scheduleAtFixedRate(this::sweep, sweepPeriod, sweepPeriod);
    }

    void stop() {
        Cancellable s = sweep;
        if (s != null) {
            s.cancel();
            sweep = null;
        }
        for (Connection c : List.copyOf(connections.values())) {
            closed(c);
        }
    }

    /** Connections this endpoint keeps state for (open or being opened). */
    int connections() {
        return connections.size();
    }

    /** The state of the connection with {@code peer}, or {@code null} (tests). */
    Connection connection(InetSocketAddress peer) {
        return connections.get(peer);
    }

    // ------------------------------------------------------------------ connection events

    @Override
    public StreamFramer opened(EndpointContext context) {
        long now = scheduler.nanoTime();
        Connection c = connections.computeIfAbsent(context.peer(), Connection::new);
        c.context = context;
        c.lastActivityNanos = now;
        c.openedNanos = now;
        LOG.debug("{} open", c);
        send(context, SignalingMessage.csm(maxMessageSize, bert));
        return framing == ReliableFraming.TCP ? new Framer(c) : null;
    }

    @Override
    public void closed(EndpointContext context) {
        Connection c = connections.get(context.peer());
        Long id = context.attribute(StreamConnector.CONNECTION_ID);
        if (c != null && (c.context == null || id == null
                || id.equals(c.context.attribute(StreamConnector.CONNECTION_ID)))) {
            closed(c);
        }
    }

    private void closed(Connection c) {
        if (!connections.remove(c.peer, c)) {
            return;
        }
        LOG.debug("{} closed", c);
        ExchangeFailedException cause = new ExchangeFailedException("connection to " + c.peer + " closed");
        for (Exchange e : List.copyOf(c.exchanges)) {
            e.execute(() -> e.fail(cause));
        }
        for (Exchange e : List.copyOf(c.pings.values())) {
            e.execute(() -> e.fail(cause));
        }
    }

    /** Cuts one connection's stream with {@link TcpFrameSplitter}; an oversize frame aborts. */
    private final class Framer implements StreamFramer {
        private final Connection c;
        private final TcpFrameSplitter splitter = new TcpFrameSplitter(maxMessageSize);

        Framer(Connection c) {
            this.c = c;
        }

        @Override
        public void read(ByteBuffer chunk, Consumer<byte[]> frames) throws FramingException {
            boolean completed = false;
            while (chunk.hasRemaining()) {
                byte[] frame;
                try {
                    frame = splitter.next(chunk);
                } catch (MessageFormatException e) {
                    counters.increment(Counter.MALFORMED);
                    abortsSent.increment();
                    banLog.malformed(c.peer, e.reason());
                    throw new FramingException(e.reason(), serializer.serialize(e.abortSignal()));
                }
                if (frame != null) {
                    completed = true;
                    frames.accept(frame);
                }
            }
            if (splitter.isIdle()) {
                c.partialSinceNanos = -1;
            } else if (completed || c.partialSinceNanos < 0) {
                c.partialSinceNanos = scheduler.nanoTime();
            }
        }
    }

    // ------------------------------------------------------------------ receiving

    /** The connector's receiver: one whole frame, on its connection's I/O thread. */
    void receive(RawData raw) {
        EndpointContext from = raw.context();
        Connection c = connections.get(from.peer());
        if (c == null || c.closing) {
            return; // closed meanwhile, or aborting: nothing more is processed (RFC 8323 §5.6)
        }
        c.lastActivityNanos = raw.receiveNanos();
        byte[] frame = raw.sharedBytes();
        try {
            if (parser.isSignaling(frame)) {
                signal(c, parser.parseSignal(frame));
                return;
            }
            if (!c.csmReceived) {
                abort(c, -1, "the first message must be a CSM (RFC 8323 5.3)");
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
                abort(c, e.abortSignal());
            }
            // IGNORE: an Empty message with content is skipped (RFC 8323 §3.4)
        }
    }

    private void signal(Connection c, SignalingMessage s) {
        signalsReceived.increment();
        if (!c.csmReceived && s.code() != Code.CSM) {
            abort(c, -1, "the first message must be a CSM (RFC 8323 5.3)");
            return;
        }
        if (s.code() == Code.CSM) {
            long max = s.maxMessageSize();
            if (max >= 0) {
                c.peerMaxMessageSize = max;
            }
            if (s.blockWiseTransfer()) {
                c.peerBlockWise = true;
            }
            c.csmReceived = true;
        } else if (s.code() == Code.PING) {
            if (s.custody()) {
                pongAfterCustody(c, s.token());
            } else {
                send(c.context, SignalingMessage.pong(s.token(), false));
            }
        } else if (s.code() == Code.PONG) {
            Exchange ping = c.pings.remove(s.token());
            if (ping != null) {
                ping.execute(ping::complete);
            }
        } else if (s.code() == Code.RELEASE) {
            LOG.debug("{} released by the peer (alternative addresses {}, hold-off {} s): {}", c,
                    s.alternativeAddresses(), s.holdOff(), s.diagnostic());
            c.released = true;
            long holdOff = s.holdOff();
            if (holdOff > 0 && holdOffUntil.size() < MAX_HOLD_OFFS) {
                holdOffUntil.put(c.peer, scheduler.nanoTime() + holdOff * 1_000_000_000L);
            }
            closeWhenDone(c);
        } else if (s.code() == Code.ABORT) {
            abortsReceived.increment();
            LOG.debug("{} aborted by the peer: {}", c, s.diagnostic());
            c.closing = true;
            connector.close(c.context);
        }
        // other 7.xx codes are not defined: ignored
    }

    private void pongAfterCustody(Connection c, Token token) {
        Set<Exchange> waiting = ConcurrentHashMap.newKeySet();
        for (Exchange e : c.exchanges) {
            if (!e.isLocal() && e.currentResponse() == null) {
                waiting.add(e);
            }
        }
        if (waiting.isEmpty()) {
            send(c.context, SignalingMessage.pong(token, true));
            return;
        }
        synchronized (c.custody) {
            c.custody.add(new Custody(token, waiting));
        }
    }

    /** A request on {@code c} has been answered or ended: Pongs with Custody may go now. */
    private void answered(Connection c, Exchange exchange) {
        List<Token> due = null;
        synchronized (c.custody) {
            if (c.custody.isEmpty()) {
                return;
            }
            for (int i = 0; i < c.custody.size(); i++) {
                Custody k = c.custody.get(i);
                if (k.waitingFor.remove(exchange) && k.waitingFor.isEmpty()) {
                    if (due == null) {
                        due = new ArrayList<>(1);
                    }
                    due.add(k.token);
                    c.custody.remove(i--);
                }
            }
        }
        if (due != null) {
            for (Token t : due) {
                send(c.context, SignalingMessage.pong(t, true));
            }
        }
    }

    private void receiveRequest(Connection c, Request request) {
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

    private void receiveResponse(Connection c, Response response) {
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
        Long until = holdOffUntil.get(exchange.peer().peer());
        if (until != null) {
            long left = until - scheduler.nanoTime();
            if (left > 0) {
                exchange.fail(new ExchangeFailedException(exchange.peer().peer() + " asked to be left alone for "
                        + Duration.ofNanos(left).toSeconds() + " s more (Release with Hold-Off, RFC 8323 5.5)"));
                return;
            }
            holdOffUntil.remove(exchange.peer().peer(), until);
        }
        Connection c = connections.computeIfAbsent(exchange.peer().peer(), Connection::new);
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
        Connection c = connections.get(exchange.peer().peer());
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
            answered(c, exchange);
        }
    }

    @Override
    public void sendEmpty(Exchange exchange, EmptyMessage message) {
        // ACK and RST do not exist over reliable transports (RFC 8323 §3.2): nothing to send
    }

    /** A response outside the stack (4.02, 4.00, 4.04 for refused requests). */
    private void sendDirect(Connection c, Response response) {
        for (MessageInterceptor i : interceptors) {
            i.sendResponse(response);
        }
        connector.send(RawData.outbound(serializer.serialize(response), c.context, null));
    }

    private boolean fits(Connection c, Message m) {
        return serializer.encodedLength(m) <= c.peerMaxMessageSize;
    }

    private void track(Connection c, Exchange exchange) {
        c.exchanges.add(exchange);
        exchange.whenComplete(() -> {
            c.exchanges.remove(exchange);
            if (!exchange.isLocal()) {
                answered(c, exchange);
            }
            if (c.released) {
                closeWhenDone(c);
            }
        });
    }

    private void closeWhenDone(Connection c) {
        if (c.exchanges.isEmpty() && c.context != null && !c.closing) {
            c.closing = true;
            connector.close(c.context);
        }
    }

    private void send(EndpointContext to, SignalingMessage signal) {
        connector.send(RawData.outbound(serializer.serialize(signal), to, null));
    }

    /** Sends Abort (RFC 8323 §5.6) and closes; nothing more is processed from the connection. */
    private void abort(Connection c, int badCsmOption, String diagnostic) {
        abort(c, SignalingMessage.abort(badCsmOption, diagnostic));
    }

    private void abort(Connection c, SignalingMessage abort) {
        if (c.closing || c.context == null) {
            return;
        }
        c.closing = true;
        abortsSent.increment();
        LOG.debug("aborting {}: {}", c, abort.diagnostic());
        send(c.context, abort);
        connector.close(c.context);
    }

    /** Sends Release (RFC 8323 §5.5) and closes. */
    void release(Connection c, String diagnostic) {
        if (c.closing || c.context == null) {
            return;
        }
        c.closing = true;
        send(c.context, SignalingMessage.release(List.of(), -1, diagnostic));
        connector.close(c.context);
    }

    // ------------------------------------------------------------------ ping

    /**
     * Sends a Ping (RFC 8323 §5.4) to {@code peer} (connecting first if this is a client without
     * a connection); the exchange completes on the Pong and fails after {@code timeout}.
     */
    Exchange ping(EndpointContext peer, Duration timeout) {
        Request placeholder = Request.get().peer(peer).build();
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, placeholder, peer, scheduler.nanoTime(), null);
        Connection c = connections.computeIfAbsent(peer.peer(), Connection::new);
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

    // ------------------------------------------------------------------ timeouts

    /** Missing CSM, incomplete frames, idle connections (one pass over the connections). */
    void sweep() {
        long now = scheduler.nanoTime();
        for (Connection c : connections.values()) {
            if (!c.isOpen() || c.closing) {
                continue;
            }
            if (!c.csmReceived && now - c.openedNanos >= csmTimeoutNanos) {
                abort(c, -1, "no CSM within " + Duration.ofNanos(csmTimeoutNanos).toMillis() + " ms (RFC 8323 5.3)");
            } else if (c.partialSinceNanos >= 0 && now - c.partialSinceNanos >= frameTimeoutNanos) {
                abort(c, -1, "frame incomplete for " + Duration.ofNanos(frameTimeoutNanos).toMillis() + " ms");
            } else if (idleTimeoutNanos > 0 && c.exchanges.isEmpty() && c.pings.isEmpty()
                    && now - c.lastActivityNanos >= idleTimeoutNanos) {
                LOG.debug("releasing idle {}", c);
                release(c, "idle for " + Duration.ofNanos(idleTimeoutNanos).toSeconds() + " s");
            }
        }
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
            Connection c = connections.get(exchange.peer().peer());
            if (c != null && !c.isOpen() && c.exchanges.isEmpty() && c.pings.isEmpty()) {
                connections.remove(c.peer, c); // the connection never opened
            }
        }
    }
}
