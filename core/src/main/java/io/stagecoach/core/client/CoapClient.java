package io.stagecoach.core.client;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.network.CoapException;
import io.stagecoach.core.server.LinkFormat;
import io.stagecoach.core.server.WebLink;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A CoAP client bound to one resource URI, in the manner of Californium's {@code CoapClient}.
 *
 * <pre>{@code
 * CoapClient client = new CoapClient("coap://localhost:5683/hello");
 * CoapResponse r = client.get();                        // synchronous
 * client.getAsync().thenAccept(x -> ...);               // CompletableFuture
 * client.get(handler);                                  // CoapHandler callback
 * }</pre>
 *
 * <ul>
 *   <li>Every response is an answer, whatever its code; a call without one fails with an
 *       exception, never {@code null}: {@link io.stagecoach.core.network.CoapTimeoutException}
 *       (no answer within {@link #timeout(Duration)}, or all retransmissions of a CON unanswered),
 *       {@link io.stagecoach.core.network.CoapRejectedException} (RST), or another
 *       {@link CoapException}.</li>
 *   <li>Requests are CON (RFC 7252 §4.2) unless {@link #useNONs()}.</li>
 *   <li>The timeout defaults to CLIENT_TIMEOUT of the endpoint's configuration (93 s,
 *       MAX_TRANSMIT_WAIT) and runs on the endpoint's clock.</li>
 *   <li>Without {@link #setEndpoint} the client uses a shared default endpoint (UDP, ephemeral
 *       port), created on first use and released by {@link #shutdownDefaultEndpoint()}.</li>
 *   <li>Callbacks and future completions run on a protocol thread of the endpoint: do not block
 *       there, and do not call synchronous methods from them.</li>
 * </ul>
 *
 * A client is cheap; its setters are meant for setup and are not synchronized against calls in
 * flight (each call reads the settings once when it starts).
 */
public class CoapClient {

    /** Californium's default for {@link #ping()}. */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(5);

    private volatile CoapUri uri;
    private volatile InetSocketAddress destination;
    private volatile CoapEndpoint endpoint;
    private volatile Type type = Type.CON;
    private volatile Duration timeout;

    /** A client for {@code uri}, e.g. {@code coap://localhost/hello}; IllegalArgumentException if not a coap URI. */
    public CoapClient(String uri) {
        setUri(uri);
    }

    /** A client for {@code uri} on an endpoint of the caller's (started and destroyed by the caller). */
    public CoapClient(String uri, CoapEndpoint endpoint) {
        this(uri);
        setEndpoint(endpoint);
    }

    /** Destroys the shared default endpoint; the next client call without an endpoint creates a new one. */
    public static void shutdownDefaultEndpoint() {
        DefaultEndpoint.shutdown();
    }

    // --- settings ---------------------------------------------------------------------------------

    public final CoapClient setUri(String uri) {
        CoapUri parsed = CoapUri.parse(uri);
        if (parsed.isSecure()) {
            throw new IllegalArgumentException("coaps (DTLS) is not supported yet: " + uri);
        }
        this.uri = parsed;
        this.destination = null; // resolved again on the next call
        return this;
    }

    public String getUri() {
        return uri.toString();
    }

    /** Uses {@code endpoint} (owned by the caller) instead of the shared default one. */
    public final CoapClient setEndpoint(CoapEndpoint endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        return this;
    }

    /** The endpoint calls go through (creates the default one if needed). */
    public CoapEndpoint getEndpoint() {
        CoapEndpoint e = endpoint;
        return e != null ? e : DefaultEndpoint.get();
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
    public Duration getTimeout() {
        Duration t = timeout;
        return t != null ? t : getEndpoint().config().get(CoapConfig.CLIENT_TIMEOUT);
    }

    // --- synchronous ------------------------------------------------------------------------------

    public CoapResponse get() {
        return ClientCall.await(getAsync());
    }

    /** GET with Accept {@code accept} (RFC 7252 §5.10.4). */
    public CoapResponse get(int accept) {
        return ClientCall.await(getAsync(accept));
    }

    public CoapResponse post(String payload, int contentFormat) {
        return ClientCall.await(postAsync(payload, contentFormat));
    }

    public CoapResponse post(byte[] payload, int contentFormat) {
        return ClientCall.await(postAsync(payload, contentFormat));
    }

    public CoapResponse put(String payload, int contentFormat) {
        return ClientCall.await(putAsync(payload, contentFormat));
    }

    public CoapResponse put(byte[] payload, int contentFormat) {
        return ClientCall.await(putAsync(payload, contentFormat));
    }

    public CoapResponse delete() {
        return ClientCall.await(deleteAsync());
    }

    /** FETCH (RFC 8132 §2) with a query body. */
    public CoapResponse fetch(byte[] payload, int contentFormat) {
        return ClientCall.await(fetchAsync(payload, contentFormat));
    }

    /** PATCH (RFC 8132 §3). */
    public CoapResponse patch(byte[] payload, int contentFormat) {
        return ClientCall.await(patchAsync(payload, contentFormat));
    }

    /** iPATCH (RFC 8132 §3), the idempotent PATCH. */
    public CoapResponse ipatch(byte[] payload, int contentFormat) {
        return ClientCall.await(ipatchAsync(payload, contentFormat));
    }

    /** Sends {@code request} as built (see {@link #newRequest(Code)}). */
    public CoapResponse advanced(Request request) {
        return ClientCall.await(advancedAsync(request));
    }

    // --- CompletableFuture ------------------------------------------------------------------------

    public CompletableFuture<CoapResponse> getAsync() {
        return send(newRequest(Code.GET));
    }

    public CompletableFuture<CoapResponse> getAsync(int accept) {
        Request.Builder b = newRequest(Code.GET);
        b.options().accept(accept);
        return send(b);
    }

    public CompletableFuture<CoapResponse> postAsync(String payload, int contentFormat) {
        return postAsync(utf8(payload), contentFormat);
    }

    public CompletableFuture<CoapResponse> postAsync(byte[] payload, int contentFormat) {
        return send(withPayload(Code.POST, payload, contentFormat));
    }

    public CompletableFuture<CoapResponse> putAsync(String payload, int contentFormat) {
        return putAsync(utf8(payload), contentFormat);
    }

    public CompletableFuture<CoapResponse> putAsync(byte[] payload, int contentFormat) {
        return send(withPayload(Code.PUT, payload, contentFormat));
    }

    public CompletableFuture<CoapResponse> deleteAsync() {
        return send(newRequest(Code.DELETE));
    }

    public CompletableFuture<CoapResponse> fetchAsync(byte[] payload, int contentFormat) {
        return send(withPayload(Code.FETCH, payload, contentFormat));
    }

    public CompletableFuture<CoapResponse> patchAsync(byte[] payload, int contentFormat) {
        return send(withPayload(Code.PATCH, payload, contentFormat));
    }

    public CompletableFuture<CoapResponse> ipatchAsync(byte[] payload, int contentFormat) {
        return send(withPayload(Code.IPATCH, payload, contentFormat));
    }

    /**
     * Sends {@code request} as built. A request without a destination (no IP-literal URI, no peer)
     * goes to this client's host and port.
     */
    public CompletableFuture<CoapResponse> advancedAsync(Request request) {
        Request r = request.peer() != null ? request : request.newBuilder().peer(peer()).build();
        return ClientCall.send(getEndpoint(), r, getTimeout());
    }

    // --- CoapHandler ------------------------------------------------------------------------------

    public void get(CoapHandler handler) {
        deliver(getAsync(), handler);
    }

    public void post(CoapHandler handler, String payload, int contentFormat) {
        deliver(postAsync(payload, contentFormat), handler);
    }

    public void put(CoapHandler handler, String payload, int contentFormat) {
        deliver(putAsync(payload, contentFormat), handler);
    }

    public void delete(CoapHandler handler) {
        deliver(deleteAsync(), handler);
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
        Request.Builder b = newRequest(Code.GET);
        b.options().observe(0);
        return observe(b.build(), handler);
    }

    /** As {@link #observe(CoapHandler)} with Accept {@code accept}. */
    public CoapObserveRelation observe(CoapHandler handler, int accept) {
        Request.Builder b = newRequest(Code.GET);
        b.options().observe(0).accept(accept);
        return observe(b.build(), handler);
    }

    /**
     * Observes with a request built by the caller ({@link #newRequest(Code)}: GET or FETCH with
     * Observe=0 and any other options). IllegalArgumentException without Observe=0.
     */
    public CoapObserveRelation observe(Request request, CoapHandler handler) {
        Request r = request.peer() != null ? request : request.newBuilder().peer(peer()).build();
        CoapEndpoint e = getEndpoint();
        return CoapObserveRelation.start(e, r, handler, getTimeout(),
                e.config().get(CoapConfig.OBSERVE_REREGISTRATION_MARGIN));
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
        return ClientCall.ping(getEndpoint(), peer(), timeout);
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
        CoapUri wellKnown = CoapUri.of(false, uri.host(), uri.port(), List.of(".well-known", "core"), q);
        Request.Builder b = Request.get().uri(wellKnown).type(type).peer(peer());
        b.options().accept(40);
        return ClientCall.send(getEndpoint(), b.build(), getTimeout()).thenApply(CoapClient::links);
    }

    private static List<WebLink> links(CoapResponse r) {
        if (!r.code().equals(Code.CONTENT)) {
            throw new CoapClientException("discovery answered " + r.code() + " instead of 2.05", r);
        }
        if (r.contentFormat() != 40) {
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
     * {@link #advanced(Request)}: {@code client.advanced(client.newRequest(Code.GET).payload(...).build())}.
     */
    public Request.Builder newRequest(Code method) {
        return Request.builder(method).uri(uri).type(type).peer(peer());
    }

    private Request.Builder withPayload(Code method, byte[] payload, int contentFormat) {
        Request.Builder b = newRequest(method).payload(payload);
        b.options().contentFormat(contentFormat);
        return b;
    }

    private CompletableFuture<CoapResponse> send(Request.Builder b) {
        return ClientCall.send(getEndpoint(), b.build(), getTimeout());
    }

    /** The destination: an IP literal directly, a host name resolved once per {@link #setUri}. */
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
                handler.onError(t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                        ? t.getCause() : t);
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
