package io.stagecoach.core.client;

import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

// Over 500 lines: the novice API's blocking and asynchronous forms of every method and observe;
// each is a few lines over the shared request path.
/**
 * A CoAP client bound to one resource URI, in the manner of Californium's {@code CoapClient}.
 *
 * <pre>{@code
 * try (CoapClient client = new CoapClient("coap://localhost:5683/hello")) {
 *     CoapResponse r = client.get();                          // synchronous
 *     client.getAsync().thenAccept(x -> ...);                 // CompletableFuture
 *     client.get(handler);                                    // CoapHandler callback
 *     client.post("on", ContentFormat.TEXT_PLAIN);
 * }
 * }</pre>
 *
 * <ul>
 *   <li>Every method (GET, POST, PUT, DELETE, FETCH, PATCH, iPATCH, a request built by hand) has
 *       three forms: synchronous, {@code ...Async} returning a {@code CompletableFuture}, and one
 *       taking a {@link CoapHandler}.</li>
 *   <li>Every response is an answer, whatever its code; a call without one fails with a
 *       {@link CoapException}, never {@code null}: {@link CoapTimeoutException} (no answer within
 *       {@link #timeout()}, or all retransmissions of a CON unanswered), {@link CoapRejectedException}
 *       (RST), or another {@link CoapException}.</li>
 *   <li>Requests are CON (RFC 7252 §4.2) unless {@link #useNONs()}.</li>
 *   <li>The timeout defaults to CLIENT_TIMEOUT of the endpoint's configuration (93 s,
 *       MAX_TRANSMIT_WAIT) and runs on the endpoint's clock.</li>
 *   <li>Endpoint: {@code new CoapClient(uri)} uses the shared default endpoint of the URI's scheme
 *       (UDP on an ephemeral port for {@code coap}; a TCP, TLS or WebSocket client connector for
 *       {@code coap+tcp}, {@code coaps+tcp}, {@code coap+ws}, {@code coaps+ws}, the secure ones
 *       trusting the JDK's default trust store; configured by {@link #configureDefaultEndpoint}),
 *       created on first use and released by
 *       {@link #shutdownDefaultEndpoint()}; {@code coaps} (DTLS) has no default endpoint, since a
 *       DTLS client needs credentials: {@link CoapClientBuilder#dtls} gives them;
 *       {@code new CoapClient(uri, endpoint)} uses the caller's,
 *       which must serve the URI's scheme; a private CA goes to {@link CoapClientBuilder#tls};
 *       {@link #builder(String)} makes a client with an endpoint of its own (configuration,
 *       layers), destroyed by {@link #close()}.</li>
 *   <li>Callbacks and future completions run on a protocol thread of the endpoint: do not block
 *       there, and do not call synchronous methods from them.</li>
 * </ul>
 *
 * A client is cheap; its settings are meant for setup and are not synchronized against calls in
 * flight (each call reads them once when it starts). {@link #close()} ends the client's
 * observations (locally, RFC 7641 §3.6) and destroys an endpoint it owns.
 */
public class CoapClient implements AutoCloseable {

    /** Californium's default for {@link #ping()}. */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(5);

    private final CoapEndpoint endpoint; // null: the shared default endpoint
    private final boolean ownsEndpoint;
    private final Set<CoapObserveRelation> observations = ConcurrentHashMap.newKeySet();
    private volatile CoapUri uri;
    private volatile InetSocketAddress destination;
    private volatile Type type = Type.CON;
    private volatile Duration timeout;

    /** A client for {@code uri}, e.g. {@code coap://localhost/hello}, on the shared default endpoint. */
    public CoapClient(String uri) {
        this(uri, null, false);
    }

    /** A client for {@code uri} on an endpoint of the caller's (started and destroyed by the caller). */
    public CoapClient(String uri, CoapEndpoint endpoint) {
        this(uri, Objects.requireNonNull(endpoint, "endpoint"), false);
    }

    CoapClient(String uri, CoapEndpoint endpoint, boolean ownsEndpoint) {
        this.endpoint = endpoint;
        this.ownsEndpoint = ownsEndpoint;
        uri(uri);
    }

    /**
     * A builder for a client with its own endpoint (configuration, layers, clock), or on a given
     * endpoint: {@code CoapClient.builder("coap://host/x").config(config).layers(...).build()}.
     */
    public static CoapClientBuilder builder(String uri) {
        return new CoapClientBuilder(uri);
    }

    /**
     * Sets the configuration of the shared default endpoint, taking effect when it is next
     * created (first use, or after {@link #shutdownDefaultEndpoint()}). Without a call, or after
     * one with {@code null}, it is {@link CoapConfig#defaults()} with the system properties
     * {@code stagecoach.<key>} applied.
     */
    public static void configureDefaultEndpoint(Configuration config) {
        DefaultEndpoint.configure(config);
    }

    /** Destroys the shared default endpoint; the next client call without an endpoint creates a new one. */
    public static void shutdownDefaultEndpoint() {
        DefaultEndpoint.shutdown();
    }

    // --- settings ---------------------------------------------------------------------------------

    /**
     * Points the following calls at {@code uri}.
     *
     * @throws IllegalArgumentException unless a {@code coap://} or {@code coaps://} URI or one of
     *     RFC 8323's ({@code coap+tcp://}, {@code coaps+tcp://}, {@code coap+ws://},
     *     {@code coaps+ws://}); with an endpoint of the caller's, also when the endpoint's
     *     {@linkplain CoapEndpoint#scheme() scheme} is another; without one, for {@code coaps://}:
     *     DTLS needs credentials, which the shared default endpoint does not have
     *     ({@link CoapClientBuilder#dtls}).
     */
    public final CoapClient uri(String uri) {
        CoapUri parsed = CoapUri.parse(uri);
        if (endpoint == null && parsed.scheme().equals("coaps")) {
            throw new IllegalArgumentException(DefaultEndpoint.COAPS_NEEDS_CREDENTIALS + ": " + uri);
        }
        if (endpoint != null && !endpoint.scheme().equals(parsed.scheme())) {
            throw new IllegalArgumentException("a " + parsed.scheme() + " URI needs a " + parsed.scheme()
                    + " endpoint, not " + endpoint.scheme() + ": " + uri);
        }
        this.uri = parsed;
        this.destination = null; // resolved again on the next call
        return this;
    }

    public String uri() {
        return uri.toString();
    }

    /** The endpoint calls go through (creates the shared default one if needed). */
    public CoapEndpoint endpoint() {
        CoapEndpoint e = endpoint;
        return e != null ? e : DefaultEndpoint.get(uri.scheme());
    }

    /** Sends the following requests as NON (RFC 7252 §4.3): no ACK, no retransmission. */
    public CoapClient useNONs() {
        type = Type.NON;
        return this;
    }

    /** Sends the following requests as CON (the default). */
    public CoapClient useCONs() {
        type = Type.CON;
        return this;
    }

    /** Fails each following call that has no response after {@code timeout}; {@code null} restores the default. */
    public CoapClient timeout(Duration timeout) {
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeout = timeout;
        return this;
    }

    /** The timeout in force: the one set, else CLIENT_TIMEOUT of the endpoint's configuration. */
    public Duration timeout() {
        Duration t = timeout;
        return t != null ? t : endpoint().config().get(CoapConfig.CLIENT_TIMEOUT);
    }

    // --- synchronous ------------------------------------------------------------------------------

    public CoapResponse get() {
        return ClientCall.await(getAsync());
    }

    /** GET with Accept {@code accept} (RFC 7252 §5.10.4). */
    public CoapResponse get(ContentFormat accept) {
        return ClientCall.await(getAsync(accept));
    }

    public CoapResponse post(String payload, ContentFormat format) {
        return ClientCall.await(postAsync(payload, format));
    }

    public CoapResponse post(byte[] payload, ContentFormat format) {
        return ClientCall.await(postAsync(payload, format));
    }

    public CoapResponse put(String payload, ContentFormat format) {
        return ClientCall.await(putAsync(payload, format));
    }

    public CoapResponse put(byte[] payload, ContentFormat format) {
        return ClientCall.await(putAsync(payload, format));
    }

    public CoapResponse delete() {
        return ClientCall.await(deleteAsync());
    }

    /** FETCH (RFC 8132 §2) with a query body. */
    public CoapResponse fetch(byte[] payload, ContentFormat format) {
        return ClientCall.await(fetchAsync(payload, format));
    }

    /** PATCH (RFC 8132 §3). */
    public CoapResponse patch(byte[] payload, ContentFormat format) {
        return ClientCall.await(patchAsync(payload, format));
    }

    /** iPATCH (RFC 8132 §3), the idempotent PATCH. */
    public CoapResponse ipatch(byte[] payload, ContentFormat format) {
        return ClientCall.await(ipatchAsync(payload, format));
    }

    /** Sends {@code request} as built (see {@link #newRequest(Code)}). */
    public CoapResponse advanced(Request request) {
        return ClientCall.await(advancedAsync(request));
    }

    // --- CompletableFuture ------------------------------------------------------------------------

    public CompletableFuture<CoapResponse> getAsync() {
        return send(newRequest(Code.GET));
    }

    public CompletableFuture<CoapResponse> getAsync(ContentFormat accept) {
        return send(newRequest(Code.GET).accept(accept));
    }

    public CompletableFuture<CoapResponse> postAsync(String payload, ContentFormat format) {
        return postAsync(utf8(payload), format);
    }

    public CompletableFuture<CoapResponse> postAsync(byte[] payload, ContentFormat format) {
        return send(withPayload(Code.POST, payload, format));
    }

    public CompletableFuture<CoapResponse> putAsync(String payload, ContentFormat format) {
        return putAsync(utf8(payload), format);
    }

    public CompletableFuture<CoapResponse> putAsync(byte[] payload, ContentFormat format) {
        return send(withPayload(Code.PUT, payload, format));
    }

    public CompletableFuture<CoapResponse> deleteAsync() {
        return send(newRequest(Code.DELETE));
    }

    public CompletableFuture<CoapResponse> fetchAsync(byte[] payload, ContentFormat format) {
        return send(withPayload(Code.FETCH, payload, format));
    }

    public CompletableFuture<CoapResponse> patchAsync(byte[] payload, ContentFormat format) {
        return send(withPayload(Code.PATCH, payload, format));
    }

    public CompletableFuture<CoapResponse> ipatchAsync(byte[] payload, ContentFormat format) {
        return send(withPayload(Code.IPATCH, payload, format));
    }

    /**
     * Sends {@code request} as built. A request without a destination (no IP-literal URI, no peer)
     * goes to this client's host and port.
     */
    public CompletableFuture<CoapResponse> advancedAsync(Request request) {
        Request r = request.peer() != null ? request : request.newBuilder().peer(peer()).build();
        return ClientCall.send(endpoint(), r, timeout());
    }

    // --- CoapHandler ------------------------------------------------------------------------------

    public void get(CoapHandler handler) {
        deliver(getAsync(), handler);
    }

    public void get(CoapHandler handler, ContentFormat accept) {
        deliver(getAsync(accept), handler);
    }

    public void post(CoapHandler handler, String payload, ContentFormat format) {
        deliver(postAsync(payload, format), handler);
    }

    public void post(CoapHandler handler, byte[] payload, ContentFormat format) {
        deliver(postAsync(payload, format), handler);
    }

    public void put(CoapHandler handler, String payload, ContentFormat format) {
        deliver(putAsync(payload, format), handler);
    }

    public void put(CoapHandler handler, byte[] payload, ContentFormat format) {
        deliver(putAsync(payload, format), handler);
    }

    public void delete(CoapHandler handler) {
        deliver(deleteAsync(), handler);
    }

    public void fetch(CoapHandler handler, byte[] payload, ContentFormat format) {
        deliver(fetchAsync(payload, format), handler);
    }

    public void patch(CoapHandler handler, byte[] payload, ContentFormat format) {
        deliver(patchAsync(payload, format), handler);
    }

    public void ipatch(CoapHandler handler, byte[] payload, ContentFormat format) {
        deliver(ipatchAsync(payload, format), handler);
    }

    public void advanced(CoapHandler handler, Request request) {
        deliver(advancedAsync(request), handler);
    }

    // --- observe (RFC 7641) ------------------------------------------------------------------------

    /**
     * Observes this client's resource: GET with Observe=0 (RFC 7641 §3.1). {@code handler.onLoad}
     * runs for the registration response and every fresh notification; see
     * {@link CoapObserveRelation} for ordering, re-registration and cancellation.
     */
    public CoapObserveRelation observe(CoapHandler handler) {
        return observe(newRequest(Code.GET).observe(0).build(), handler);
    }

    /** As {@link #observe(CoapHandler)} with Accept {@code accept}. */
    public CoapObserveRelation observe(CoapHandler handler, ContentFormat accept) {
        return observe(newRequest(Code.GET).observe(0).accept(accept).build(), handler);
    }

    /**
     * Observes with a request built by the caller ({@link #newRequest(Code)}: GET or FETCH with
     * Observe=0 and any other options). IllegalArgumentException without Observe=0.
     */
    public CoapObserveRelation observe(Request request, CoapHandler handler) {
        Request r = request.peer() != null ? request : request.newBuilder().peer(peer()).build();
        CoapEndpoint e = endpoint();
        observations.removeIf(CoapObserveRelation::isCanceled);
        CoapObserveRelation relation = CoapObserveRelation.start(e, r, handler, timeout(),
                e.config().get(CoapConfig.OBSERVE_REREGISTRATION_MARGIN));
        observations.add(relation);
        return relation;
    }

    /**
     * As {@link #observe(CoapHandler)}, but waits for the registration's answer (which the handler
     * also gets) before returning; its failure is thrown as the synchronous calls throw it. Not
     * for protocol threads or virtual-clock tests.
     */
    public CoapObserveRelation observeAndWait(CoapHandler handler) {
        Objects.requireNonNull(handler, "handler");
        CompletableFuture<Void> first = new CompletableFuture<>();
        CoapObserveRelation relation = observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                first.complete(null);
                handler.onLoad(response);
            }

            @Override
            public void onError(Throwable error) {
                first.completeExceptionally(error);
                handler.onError(error);
            }
        });
        ClientCall.await(first);
        return relation;
    }

    // --- ping and discovery -----------------------------------------------------------------------

    /** CoAP ping (RFC 7252 §4.3) of this client's host: {@code true} when it answers RST within 5 s. */
    public boolean ping() {
        return ping(DEFAULT_PING_TIMEOUT);
    }

    /** As {@link #ping()} with {@code timeout} on the endpoint's clock; {@code false} on timeout. */
    public boolean ping(Duration timeout) {
        return ClientCall.await(pingAsync(timeout));
    }

    public CompletableFuture<Boolean> pingAsync(Duration timeout) {
        return ClientCall.ping(endpoint(), peer(), timeout);
    }

    /** All links of the host's {@code /.well-known/core} (RFC 6690 §4). */
    public List<WebLink> discover() {
        return discover(null);
    }

    /**
     * The links of the host's {@code /.well-known/core} matching {@code query}, e.g. {@code rt=temp}
     * or {@code href=/sensors*&ct=50} (several arguments are ANDed).
     *
     * @throws CoapClientException when the answer is not 2.05 link-format
     */
    public List<WebLink> discover(String query) {
        return ClientCall.await(discoverAsync(query));
    }

    public CompletableFuture<List<WebLink>> discoverAsync(String query) {
        List<String> q = query == null || query.isEmpty() ? List.of() : List.of(query.split("&"));
        CoapUri wellKnown = CoapUri.of(uri.scheme(), uri.host(), uri.port(), List.of(".well-known", "core"), q);
        Request r = Request.get().uri(wellKnown).type(type).peer(peer()).accept(ContentFormat.LINK_FORMAT).build();
        return ClientCall.send(endpoint(), r, timeout()).thenApply(CoapClient::links);
    }

    private static List<WebLink> links(CoapResponse r) {
        if (!r.code().equals(Code.CONTENT)) {
            throw new CoapClientException("discovery answered " + r.code() + " instead of 2.05", r);
        }
        if (!ContentFormat.LINK_FORMAT.equals(r.contentFormat())) {
            throw new CoapClientException("discovery answered Content-Format " + r.contentFormat()
                    + " instead of 40 (application/link-format)", r);
        }
        try {
            return LinkFormat.parse(r.payloadText());
        } catch (IllegalArgumentException e) {
            throw new CoapClientException("discovery payload is not link-format: " + e.getMessage(), r);
        }
    }

    // --- building ---------------------------------------------------------------------------------

    /**
     * A request builder for this client's URI, type and destination, to add options before
     * {@link #advanced(Request)}: {@code client.advanced(client.newRequest(Code.GET).accept(ContentFormat.JSON).build())}.
     */
    public Request.Builder newRequest(Code method) {
        return Request.builder(method).uri(uri).type(type).peer(peer());
    }

    /**
     * Ends this client's observations locally (RFC 7641 §3.6: the server's next notification is
     * answered RST) and destroys the endpoint if this client owns it ({@link #builder}). The
     * shared default endpoint and an endpoint handed in stay. On an endpoint with an observation
     * store the observations stay in the store: their notifications then reach the endpoint's
     * (or another node's) notification listeners (docs/cluster.md). Idempotent.
     */
    @Override
    public void close() {
        for (CoapObserveRelation r : observations) {
            r.detach();
        }
        observations.clear();
        if (ownsEndpoint) {
            endpoint.destroy();
        }
    }

    private Request.Builder withPayload(Code method, byte[] payload, ContentFormat format) {
        return newRequest(method).payload(payload).contentFormat(format);
    }

    private CompletableFuture<CoapResponse> send(Request.Builder b) {
        return ClientCall.send(endpoint(), b.build(), timeout());
    }

    /** The destination: an IP literal directly, a host name resolved once per {@link #uri(String)}. */
    private EndpointContext peer() {
        InetSocketAddress d = destination;
        if (d == null) {
            CoapUri u = uri;
            try {
                d = u.isIpLiteral() ? u.destination() : u.resolve();
            } catch (UnknownHostException e) {
                throw new CoapException("cannot resolve host '" + u.host() + "' of " + u, e);
            }
            destination = d;
        }
        return EndpointContext.of(d);
    }

    private static void deliver(CompletableFuture<CoapResponse> future, CoapHandler handler) {
        Objects.requireNonNull(handler, "handler");
        future.whenComplete((r, t) -> {
            if (t != null) {
                handler.onError(t instanceof CompletionException && t.getCause() != null ? t.getCause() : t);
            } else {
                handler.onLoad(r);
            }
        });
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "CoapClient[" + uri + ", " + type + "]";
    }
}
