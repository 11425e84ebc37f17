package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.EndpointCounters.Gauge;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.ExchangeRejectedException;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.internal.AddressVerifier;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.MessageIdProvider;
import io.stagecoach.core.network.internal.Overload;
import io.stagecoach.core.network.internal.PeerKey;
import io.stagecoach.core.network.internal.cc.PeerCongestionState;
import io.stagecoach.core.network.internal.cc.PeerStateMap;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import io.stagecoach.core.network.internal.layers.ReliabilityLayer;
import io.stagecoach.core.network.stack.Layer;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.network.stack.StackServices;
import io.stagecoach.core.observe.NotificationListener;
import io.stagecoach.core.observe.ObservationStore;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 500 lines: the endpoint is where connector, protocol stage, layer stack and stores are
// wired and started/stopped together; Inbound, Outbox and ProtocolStage already hold the logic.
/**
 * The protocol stage: one CoAP endpoint on one connector (Lanter, thesis §4.2.2).
 *
 * <p>Datagrams from the connector are handed to the protocol pool through a bounded queue (or run
 * inline on the receive thread when PROTOCOL_THREADS is 0), decoded, deduplicated, matched to
 * their {@link Exchange} and passed up the {@link LayerStack}. Requests reaching the top go to the
 * message deliverer (the server's resource tree); responses go to their exchange's listener.
 * Outgoing messages go down the stack and leave through the {@link Outbox}.
 *
 * <p>Build with {@link #builder()}; see {@link CoapEndpointBuilder} for the choices.
 * {@link #start()} starts the layers ({@link Layer#start}), the
 * sweeps and the connector; {@link #stop()} stops the connector, the layers, fails every open
 * exchange, stops the timers and the pool it owns and leaves no thread behind, and
 * {@link #start()} may follow; {@link #destroy()} releases everything for good.
 */
public final class CoapEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(CoapEndpoint.class);

    private final Connector connector;
    private final Configuration config;
    private final Scheduler scheduler;
    private final AutoCloseable ownedScheduler;
    private final RandomGenerator random;
    private final Executor externalExecutor;
    private final EndpointCounters counters = new EndpointCounters();
    private final ExchangeStore store = new ExchangeStore();
    private final DeduplicationStore dedup;
    private final MessageIdProvider mids;
    private final PeerStateMap<PeerKey, PeerCongestionState> congestion;
    private final AddressVerifier verifier;
    private final LayerStack stack;
    private final Inbound inbound;
    private final Outbox outbox;
    /** The message path on a {@link StreamConnector} (RFC 8323); {@code null} on datagram connectors. */
    private final ReliableTransport reliable;
    private final Duration sweepInterval;
    private final long overloadMaxAgeSeconds;
    private final BanLog banLog;
    /** Matches notifications through the observation store; {@code null} without one. */
    private final ObservationMatcher observations;

    private volatile LayerStack.Inbox deliverer;
    private final Router router = new Router();
    private volatile ProtocolStage stage;
    private volatile boolean running;
    private boolean destroyed;

    CoapEndpoint(CoapEndpointBuilder b) {
        this.config = b.config;
        this.scheduler = b.scheduler;
        this.ownedScheduler = b.ownedScheduler;
        this.random = b.random;
        this.externalExecutor = b.executor;
        this.sweepInterval = config.get(CoapConfig.DEDUP_SWEEP_INTERVAL);
        this.overloadMaxAgeSeconds = Overload.maxAgeSeconds(config);
        this.banLog = new BanLog(scheduler);
        this.dedup = DeduplicationStore.builder()
                .mode(config.get(CoapConfig.DEDUPLICATION_MODE))
                .exchangeLifetime(config.get(CoapConfig.EXCHANGE_LIFETIME))
                .nonLifetime(config.get(CoapConfig.NON_LIFETIME))
                .maxEntries(config.get(CoapConfig.DEDUP_MAX_ENTRIES))
                .maxBytes(config.get(CoapConfig.DEDUP_MAX_BYTES))
                .maxEntriesPerSource(config.get(CoapConfig.DEDUP_MAX_ENTRIES_PER_SOURCE))
                .clock(scheduler)
                .build();
        this.mids = new MessageIdProvider(config.get(CoapConfig.EXCHANGE_LIFETIME),
                config.get(CoapConfig.MID_MAX_PEERS), config.get(CoapConfig.MID_MAX_PEERS_PER_SOURCE),
                random != null ? random : new SecureRandom());
        this.congestion = ReliabilityLayer.newPeerStates(config);
        this.connector = b.connector();
        // A connection (TCP's handshake) or a DTLS session (its cookie exchange, RFC 6347 §4.2.1)
        // has proved the peer's address before any CoAP arrives: the limit is for plain UDP.
        boolean proven = connector instanceof StreamConnector || "DTLS".equals(connector.getProtocol());
        this.verifier = new AddressVerifier(proven ? 0 : config.get(CoapConfig.AMPLIFICATION_FACTOR),
                config.get(CoapConfig.AMPLIFICATION_VERIFIED_LIFETIME), config.get(CoapConfig.ECHO_LIFETIME),
                config.get(CoapConfig.AMPLIFICATION_MAX_VERIFIED), scheduler);
        List<MessageInterceptor> interceptors = List.copyOf(b.interceptors);
        this.outbox = new Outbox(connector, mids, store, dedup, counters, interceptors, verifier,
                config.get(CoapConfig.OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT), scheduler);
        this.reliable = connector instanceof StreamConnector stream ? new ReliableTransport(stream, config, store,
                counters, interceptors, scheduler, banLog, CoapEndpointBuilder.BERT, CoapUri.defaultPort(scheme()))
                : null;
        this.stack = b.layers(store, congestion, verifier, reliable)
                .build(new Services(), reliable != null ? reliable : outbox);
        this.stack.setInbox(router);
        this.inbound = new Inbound(stack, store, dedup, outbox, counters, interceptors, overloadMaxAgeSeconds,
                RequestLimits.from(config), RecognizedOptions.of(stack.options()), banLog, scheduler);
        this.observations = b.observationStore == null ? null
                : new ObservationMatcher(b.observationStore, store, config, this::submit, scheduler);
        if (observations != null) {
            inbound.matchObservations(observations);
            observations.register(counters);
        }
        counters.register(Gauge.EXCHANGES, store::size);
        counters.register(Gauge.DEDUP_ENTRIES, dedup::size);
        counters.register(Gauge.QUEUE_DEPTH, () -> stage == null ? 0 : stage.queueDepth());
        if (reliable != null) {
            reliable.attach(stack, RecognizedOptions.of(stack.options()));
            connector.setRawDataReceiver(reliable::receive); // inline on the connection's I/O thread
        } else {
            connector.setRawDataReceiver(new RawDataReceiver() {
                @Override
                public void receiveData(RawData data) {
                    CoapEndpoint.this.receiveData(data);
                }

                @Override
                public void receiveDatagram(byte[] buffer, int offset, int length, EndpointContext sender, long nanos) {
                    CoapEndpoint.this.receiveDatagram(buffer, offset, length, sender, nanos);
                }
            });
        }
    }

    public static CoapEndpointBuilder builder() {
        return new CoapEndpointBuilder();
    }

    /** Starts the protocol pool, the layers, the sweeps and the connector. */
    public synchronized void start() throws IOException {
        if (running) {
            return;
        }
        if (destroyed) {
            throw new IllegalStateException("endpoint destroyed; build a new one");
        }
        stage = externalExecutor != null ? ProtocolStage.external(externalExecutor)
                : ProtocolStage.pool(config.get(CoapConfig.PROTOCOL_THREADS),
                        config.get(CoapConfig.PROTOCOL_QUEUE_CAPACITY));
        stack.start();
        dedup.start(scheduler, sweepInterval);
        mids.start(scheduler, sweepInterval);
        if (reliable != null) {
            reliable.start();
        }
        running = true;
        try {
            connector.start();
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
        if (observations != null) {
            observations.restore(); // a restarted node takes its observations back (docs/cluster.md)
        }
    }

    /**
     * Stops receiving, stops the layers, fails every open exchange with an
     * {@link ExchangeFailedException}, stops the sweeps and the protocol pool this endpoint owns.
     * Idempotent.
     */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        connector.stop();
        if (reliable != null) {
            reliable.stop(); // fails the exchanges of every connection left
        }
        stack.stop(); // e.g. observe relations whose exchange holds no store entry would outlive the stop
        if (observations != null) {
            observations.stop(); // before the sweep below: nothing adopted after it
        }
        for (Exchange exchange : store.all()) {
            exchange.execute(() -> exchange.fail(new ExchangeFailedException("endpoint stopped")));
        }
        dedup.stop();
        mids.stop();
        stage.shutdown(Duration.ofSeconds(5));
    }

    /** Stops, then releases the layers, the connector and the scheduler this endpoint created, for good. Idempotent. */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        stop();
        destroyed = true;
        stack.destroy();
        connector.destroy();
        if (ownedScheduler != null) {
            try {
                ownedScheduler.close();
            } catch (Exception e) {
                LOG.warn("closing the timer failed", e);
            }
        }
    }

    public boolean isRunning() {
        return running;
    }

    /** The connector this endpoint sends and receives through (its counters, its settings). */
    public Connector connector() {
        return connector;
    }

    /** The address the connector is bound to. */
    public InetSocketAddress address() {
        return connector.getAddress();
    }

    /**
     * The URI scheme this endpoint serves and reaches: {@code coap} (UDP), {@code coaps} (DTLS),
     * or for a {@link StreamConnector} {@code coap+tcp}, {@code coaps+tcp}, {@code coap+ws},
     * {@code coaps+ws} (RFC 8323 §8), from the connector's protocol name.
     */
    public String scheme() {
        switch (connector.getProtocol()) {
            case "DTLS":
                return "coaps";
            case "TCP":
                return "coap+tcp";
            case "TLS":
                return "coaps+tcp";
            case "WS":
                return "coap+ws";
            case "WSS":
                return "coaps+ws";
            default:
                return "coap";
        }
    }

    /**
     * Whether this endpoint runs CoAP over a reliable transport (TCP, TLS, WebSockets; RFC 8323):
     * its connector is a {@link StreamConnector}.
     */
    public boolean isReliableTransport() {
        return reliable != null;
    }

    public Configuration config() {
        return config;
    }

    /** The clock and timer of this endpoint (a {@code VirtualClock} in tests); clients time calls on it. */
    public Scheduler scheduler() {
        return scheduler;
    }

    public EndpointCounters counters() {
        return counters;
    }

    /** Open exchanges in the store (tests assert 0 after each scenario). */
    public int openExchanges() {
        return store.size();
    }

    /**
     * Open exchanges of one {@code origin}: {@link Exchange.Origin#REMOTE} ones are answers to
     * peers still in flight (a CON separate response or notification waiting for its ACK, RFC 7252
     * §4.2); {@link Exchange.Origin#LOCAL} ones are this endpoint's requests and observations. A
     * scan of the store: for a drain's checks and for tests, not per message.
     */
    public int openExchanges(Exchange.Origin origin) {
        boolean local = Objects.requireNonNull(origin, "origin") == Exchange.Origin.LOCAL;
        int n = 0;
        for (Exchange e : store.all()) {
            if (e.isLocal() == local) {
                n++;
            }
        }
        return n;
    }

    /** Messages remembered for duplicate detection. */
    public int dedupEntries() {
        return dedup.size();
    }

    /**
     * Block-wise transfers holding state (server uploads being reassembled, cached downloads,
     * client transfers in progress; gauge {@code BLOCKWISE_TRANSFERS}); tests assert 0 after each
     * scenario. 0 without a blockwise layer.
     */
    public int blockwiseTransfers() {
        return (int) counters.get(Gauge.BLOCKWISE_TRANSFERS);
    }

    /**
     * Established server observe relations (RFC 7641; gauge {@code OBSERVE_RELATIONS}); tests
     * assert 0 after each scenario. 0 without an observe layer.
     */
    public int observeRelations() {
        return (int) counters.get(Gauge.OBSERVE_RELATIONS);
    }

    /** The layers, top to bottom. */
    public List<String> layerNames() {
        return stack.names();
    }

    /** Where requests that reach the top of the stack go (the server's resource tree). */
    public void setMessageDeliverer(LayerStack.Inbox deliverer) {
        this.deliverer = deliverer;
    }

    // ------------------------------------------------------------------ client side

    /**
     * Sends {@code request} to its peer ({@link Request#peer()}, set from the URI) and reports the
     * outcome to {@code listener} on a protocol thread: each response (more than one for observe),
     * or one failure ({@link ExchangeTimeoutException}, {@link ExchangeRejectedException},
     * another {@link ExchangeFailedException}).
     *
     * @throws IllegalArgumentException when the request has no destination
     * @throws IllegalStateException when the endpoint is not running
     */
    public Exchange sendRequest(Request request, Exchange.Listener listener) {
        EndpointContext peer = request.peer();
        if (peer == null) {
            throw new IllegalArgumentException("request has no destination: build it with uri(...) or peer(...)");
        }
        if (!running) {
            throw new IllegalStateException("endpoint " + address() + " is not running");
        }
        if (reliable != null) {
            peer = reliable.destination(peer); // a released server's Alternative-Address (RFC 8323 §5.5)
        }
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, request, peer, scheduler.nanoTime(),
                Objects.requireNonNull(listener, "listener"));
        exchange.execute(() -> stack.sendRequest(exchange, request));
        return exchange;
    }

    /** The observation store this endpoint was built with, or {@code null}. */
    public ObservationStore observationStore() {
        return observations == null ? null : observations.store();
    }

    /**
     * Adds a listener for the notifications this endpoint matches through its observation store
     * (observations registered by another node, or by this one before a restart).
     *
     * @throws IllegalStateException when the endpoint has no observation store
     */
    public void addNotificationListener(NotificationListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (observations == null) {
            throw new IllegalStateException("notification listeners need an observation store:"
                    + " CoapEndpointBuilder.observationStore(...)");
        }
        observations.addListener(listener);
    }

    /** Removes a listener added by {@link #addNotificationListener}; nothing without a store. */
    public void removeNotificationListener(NotificationListener listener) {
        if (observations != null) {
            observations.removeListener(listener);
        }
    }

    /**
     * Forgets the congestion-control state kept for {@code peer} (RTO estimators, carried backoff):
     * the next confirmable exchange with it starts from the initial RTO, as a newly started client
     * would (Järvinen et al., ANRW '18, §3.2 "random" clients; draft-ietf-core-cocoa-03 §4.3
     * initial values). Exchanges already in flight keep their timers. The state belongs to the
     * endpoint; the standard reliability layer uses it.
     */
    public void resetCongestionState(InetSocketAddress peer) {
        congestion.remove(new PeerKey(Objects.requireNonNull(peer, "peer")));
    }

    /** Cancels a client exchange: no retransmission, no delivery; the listener gets a failure. */
    public void cancel(Exchange exchange) {
        cancel(exchange, new ExchangeFailedException("cancelled"));
    }

    /**
     * Cancels a client exchange as {@link #cancel(Exchange)} does, reporting {@code cause} to its
     * listener (the client fails a call that ran out of time with a {@link ExchangeTimeoutException}).
     * Does nothing when the exchange is already complete.
     */
    public void cancel(Exchange exchange, ExchangeFailedException cause) {
        Objects.requireNonNull(cause, "cause");
        exchange.execute(() -> exchange.fail(cause));
    }

    /**
     * Sends a CoAP ping, an Empty CON (RFC 7252 §4.3), to {@code peer}. The returned exchange
     * completes normally when the peer's RST arrives and fails with {@link ExchangeTimeoutException}
     * after {@code timeout} on this endpoint's clock; watch it with {@link Exchange#whenComplete}
     * and {@link Exchange#failure()}. The ping is sent once (no retransmission). On a reliable
     * transport it is a 7.02 Ping signal, completed by the peer's Pong (RFC 8323 §5.4).
     *
     * @throws IllegalStateException when the endpoint is not running
     */
    public Exchange ping(EndpointContext peer, Duration timeout) {
        Objects.requireNonNull(peer, "peer");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("ping timeout must be positive, got " + timeout);
        }
        if (!running) {
            throw new IllegalStateException("endpoint " + address() + " is not running");
        }
        if (reliable != null) {
            return reliable.ping(peer, timeout); // a 7.02 Ping answered by a Pong (RFC 8323 §5.4)
        }
        return Ping.send(peer, timeout, scheduler, mids, store, outbox);
    }

    // ------------------------------------------------------------------ server side

    /**
     * Runs {@code task} on this endpoint's protocol stage, never on the calling thread: a pool
     * thread, or the endpoint's timer when the stage runs inline. For work the application starts
     * (observe notifications after {@code changed()}), so it interleaves with inbound messages.
     *
     * @return {@code false} when the stage's queue is full or the endpoint is stopped; the task
     *         then does not run
     */
    public boolean submit(Runnable task) {
        ProtocolStage s = stage;
        if (s == null || !running) {
            return false;
        }
        if (s.isInline()) {
            scheduler.schedule(task, Duration.ZERO);
            return true;
        }
        return s.tryExecute(task);
    }

    /** Sends the response to a request delivered to the resource stage. */
    public void respond(Exchange exchange, Response response) {
        if (exchange.isOwned()) {
            // A handler answering inline already holds the exchange: execute() would only re-enter,
            // so skip building its task (24 B per request).
            sendResponse(exchange, response);
        } else {
            exchange.execute(() -> sendResponse(exchange, response));
        }
    }

    private void sendResponse(Exchange exchange, Response response) {
        if (!exchange.isComplete()) {
            stack.sendResponse(exchange, response);
        }
    }

    /** Acknowledges a CON request now with an empty ACK; the response will follow separately. */
    public void accept(Exchange exchange) {
        exchange.execute(() -> {
            Request r = exchange.currentRequest();
            if (!exchange.isComplete() && r.type() == Type.CON) {
                stack.sendEmpty(exchange, EmptyMessage.ackFor(r));
            }
        });
    }

    /** Rejects the request with a RST (RFC 7252 §4.2) and ends the exchange. */
    public void reject(Exchange exchange) {
        exchange.execute(() -> {
            if (!exchange.isComplete()) {
                stack.sendEmpty(exchange, EmptyMessage.rstFor(exchange.currentRequest()));
                exchange.complete();
            }
        });
    }

    // ------------------------------------------------------------------ plumbing

    private void receiveData(RawData raw) {
        ProtocolStage s = stage;
        if (s != null && s.tryExecute(raw.context().peer(), () -> process(raw))) {
            return;
        }
        // The protocol stage is full, this source's share of it is taken, or the endpoint is
        // stopping: a CON request still learns to come back later.
        byte[] bytes = raw.bytes();
        byte[] unavailable = OverloadReply.serviceUnavailable(bytes, bytes.length, overloadMaxAgeSeconds);
        if (unavailable != null && s != null) {
            counters.increment(Counter.REJECTED_OVERLOAD);
            counters.sent(Type.ACK);
            connector.send(RawData.outbound(unavailable, raw.context(), null));
        } else {
            counters.increment(Counter.DROPPED_QUEUE_FULL);
        }
    }

    /**
     * A datagram lent for the call: decoded here when the protocol stage runs inline on the
     * connector's thread (no copy of it is kept); copied into a {@link RawData} for a pool, which
     * reads it later on another thread.
     */
    private void receiveDatagram(byte[] buffer, int offset, int length, EndpointContext sender, long nanos) {
        ProtocolStage s = stage;
        if (s == null || !s.isInline()) {
            receiveData(RawData.inbound(Arrays.copyOfRange(buffer, offset, offset + length), sender, nanos));
            return;
        }
        try {
            inbound.receiveLent(buffer, offset, length, sender, nanos);
        } catch (RuntimeException e) {
            LOG.warn("processing a datagram from {} failed: {}", sender.peer(), SafeText.forLog(e.toString()));
            LOG.debug("the stack trace", e);
        }
    }

    private void process(RawData raw) {
        try {
            inbound.receive(raw);
        } catch (RuntimeException e) {
            // A bug or a throwing layer must not kill the protocol thread (the next datagram is served).
            LOG.warn("processing a datagram from {} failed: {}", raw.context().peer(), SafeText.forLog(e.toString()));
            LOG.debug("the stack trace", e); // its message may quote the datagram, unescaped
        }
    }

    /** Routes what reaches the top of the stack: requests to the deliverer, responses to their listener. */
    private final class Router implements LayerStack.Inbox {
        @Override
        public void deliverRequest(Exchange exchange, Request request) {
            LayerStack.Inbox d = deliverer;
            if (d != null) {
                d.deliverRequest(exchange, request);
            } else {
                stack.sendResponse(exchange, Response.forRequest(request, Code.NOT_FOUND).build());
            }
        }

        @Override
        public void deliverResponse(Exchange exchange, Response response) {
            if (exchange.listener() != null) {
                exchange.listener().onResponse(exchange, response);
            }
        }

        @Override
        public boolean accepts(Request request) {
            LayerStack.Inbox d = deliverer;
            return d != null && d.accepts(request);
        }
    }

    private final class Services implements StackServices {
        @Override
        public boolean accepts(Request request) {
            return router.accepts(request);
        }

        @Override
        public long amplificationBudget(Exchange exchange) {
            return exchange.isLocal() ? Long.MAX_VALUE : verifier.limit(exchange.requestBytes(), exchange.sentBytes());
        }

        @Override
        public byte[] echoChallenge(InetSocketAddress peer) {
            return verifier.isEnabled() ? verifier.echo(peer) : null;
        }

        @Override
        public boolean isAddressVerified(InetSocketAddress peer) {
            return verifier.isVerified(peer);
        }

        @Override
        public void addressVerified(InetSocketAddress peer) {
            verifier.verified(peer);
        }

        @Override
        public Scheduler scheduler() {
            return scheduler;
        }

        @Override
        public Configuration config() {
            return config;
        }

        @Override
        public RandomGenerator random() {
            return random != null ? random : ThreadLocalRandom.current();
        }

        @Override
        public EndpointCounters counters() {
            return counters;
        }

        @Override
        public void limitExceeded(InetSocketAddress peer, String reason) {
            counters.increment(Counter.LIMIT_EXCEEDED);
            banLog.limitExceeded(peer, reason);
        }

        @Override
        public void execute(Exchange exchange, Runnable task) {
            ProtocolStage s = stage;
            // A timer must not be lost when the queue is full: then it runs on the calling thread.
            if (s == null || !s.tryExecute(() -> exchange.execute(task))) {
                exchange.execute(task);
            }
        }
    }
}
