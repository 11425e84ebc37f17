package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.Overload;
import io.stagecoach.core.network.internal.layers.ObserveRelation;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.server.internal.ObserverBudget;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.time.Clock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resource stage's entry (Lanter thesis §5.4): takes requests from the top of the layer stack,
 * finds the resource by Uri-Path and runs its handler.
 *
 * <ul>
 *   <li>No resource at the path: 4.04 Not Found (RFC 7252 §5.9.2.5).
 *   <li>Accept not served by the resource ({@link Resource#isAcceptable(int)}): 4.06 Not Acceptable
 *       (RFC 7252 §5.10.4), before the handler runs.
 *   <li>Handler thread: the resource's {@link Resource#effectiveExecutor()}; none means inline on
 *       the calling protocol thread (fast, but a blocking handler stalls the endpoint).
 *   <li>The executor refuses the task (bounded and full): 5.03 Service Unavailable with Max-Age
 *       (RFC 7252 §5.9.3.4) so clients back off, counted in {@link ServerCounters#rejectedOverload()}.
 *   <li>A registration (GET/FETCH Observe=0, RFC 7641 §4.1) on an observable {@link CoapResource}
 *       within OBSERVE_MAX_OBSERVERS_PER_RESOURCE and the server's OBSERVE_MAX_OBSERVERS is
 *       accepted: its 2.xx answer carries the resource's sequence number. Beyond a limit it is
 *       served as a plain GET, counted in {@link ServerCounters#observeRejected()}.
 *   <li>The handler (or a {@link HandlerInterceptor}) throws: 5.00 Internal Server Error, a WARN
 *       log, and the server carries on. With {@code coap.server.error-diagnostics} the 5.00 carries
 *       "ExceptionClass: message" cut to {@value #MAX_DIAGNOSTIC_BYTES} bytes (RFC 7252 §5.5.2
 *       diagnostic payload); by default it carries nothing.
 *   <li>Proxy-Uri or Proxy-Scheme: 5.05 Proxying Not Supported (RFC 7252 §5.7.2), unless the
 *       server was given a proxy resource, which then serves them.
 *   <li>{@link HandlerInterceptor}s, when the server has any, run around the handler on its
 *       thread; without any the handler is called directly.
 *   <li>While the server drains ({@link CoapServer#drain}), a request that does not continue a
 *       block-wise transfer is answered 5.03 with Max-Age (RFC 7252 §5.9.3.4) before any resource
 *       sees it, counted in {@link ServerCounters#refusedDraining()} ({@link DrainGate}).
 * </ul>
 *
 * Responses reaching the top of a server stack have no business here and are logged and dropped.
 */
final class ServerMessageDeliverer implements LayerStack.Inbox {

    private static final Logger LOG = LoggerFactory.getLogger(ServerMessageDeliverer.class);

    /** Longest diagnostic payload of a 5.00 answer. */
    static final int MAX_DIAGNOSTIC_BYTES = 64;

    private final ResourceTree tree;
    private final ExchangeResponder responder;
    private final long overloadMaxAge;
    private final HandlerInterceptor[] interceptors;
    private final ServerCounters counters = new ServerCounters();
    private final NotificationDispatcher dispatcher;
    private final Resource proxy;
    private final boolean diagnostics;
    private final DrainGate drain = new DrainGate();
    /**
     * One stack trace per 10 s for failing handlers; every failure is counted in handlerErrors.
     * The system clock: this rate limit decides nothing a test or simulation depends on.
     */
    private final LogThrottle failureLog =
            new LogThrottle(Clock.system(), Duration.ofSeconds(10));
    private volatile ObserverBudget observerBudget =
            new ObserverBudget(CoapConfig.OBSERVE_MAX_OBSERVERS.defaultValue(),
                    CoapConfig.OBSERVE_MAX_OBSERVERS_PER_SOURCE.defaultValue());
    private volatile int maxObserversPerResource = CoapConfig.OBSERVE_MAX_OBSERVERS_PER_RESOURCE.defaultValue();

    /**
     * @param overloadMaxAgeSeconds Max-Age of the 5.03 sent when an executor is full
     * @param interceptors run around every handler, first outermost; none: handlers are called directly
     * @param proxy        serves requests with Proxy-Uri or Proxy-Scheme; {@code null}: 5.05
     * @param diagnostics  whether a 5.00 carries the exception's class and message
     */
    ServerMessageDeliverer(ResourceTree tree, ExchangeResponder responder, long overloadMaxAgeSeconds,
            List<HandlerInterceptor> interceptors, Resource proxy, boolean diagnostics) {
        this.tree = Objects.requireNonNull(tree, "tree");
        this.responder = Objects.requireNonNull(responder, "responder");
        if (overloadMaxAgeSeconds < 0 || overloadMaxAgeSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("Max-Age must be 0..2^32-1 seconds, got " + overloadMaxAgeSeconds);
        }
        this.overloadMaxAge = overloadMaxAgeSeconds;
        this.interceptors = interceptors.toArray(new HandlerInterceptor[0]);
        this.proxy = proxy;
        this.diagnostics = diagnostics;
        this.dispatcher = new NotificationDispatcher(this, responder);
    }

    ServerCounters counters() {
        return counters;
    }

    /** Observe limits; the server shares one budget among the deliverers of its endpoints. */
    void observeLimits(int perResource, ObserverBudget budget) {
        if (perResource < 1) {
            throw new IllegalArgumentException("observers per resource must be at least 1, got " + perResource);
        }
        this.maxObserversPerResource = perResource;
        this.observerBudget = budget;
    }

    /** Observe relations the server's budget holds (all resources, all endpoints sharing it). */
    int observers() {
        return observerBudget.used();
    }

    ResourceTree tree() {
        return tree;
    }

    DrainGate drainGate() {
        return drain;
    }

    @Override
    public void deliverRequest(Exchange exchange, Request request) {
        counters.delivered.increment();
        if (drain.refuses(exchange)) {
            counters.refusedDraining.increment();
            responder.respond(exchange, Overload.serviceUnavailable(request, overloadMaxAge).peer(exchange.peer()).build());
            return;
        }
        Resource resource;
        if (request.options().has(OptionNumber.PROXY_URI) || request.options().has(OptionNumber.PROXY_SCHEME)) {
            if (proxy == null) {
                // a request for another server: never served from this tree (RFC 7252 §5.7.2)
                responder.respond(exchange, answer(exchange, request, Code.PROXYING_NOT_SUPPORTED).build());
                return;
            }
            resource = proxy;
        } else {
            resource = tree.find(request.options());
        }
        if (resource == null) {
            counters.notFound.increment();
            responder.respond(exchange, answer(exchange, request, Code.NOT_FOUND).build());
            return;
        }
        if (!resource.isAcceptable(request.options().accept())) {
            counters.notAcceptable.increment();
            new CoapExchange(exchange, resource, responder).respond(Code.NOT_ACCEPTABLE);
            return;
        }
        CoapExchange cx = new CoapExchange(exchange, resource, responder, register(exchange, resource), false);
        Executor executor = resource.effectiveExecutor();
        drain.started();
        if (executor == null) {
            try {
                invoke(resource, cx);
            } finally {
                drain.finished(cx);
            }
            cx.detach(); // answered inline and kept by nobody: the endpoint may reuse the exchange
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    invoke(resource, cx);
                } finally {
                    drain.finished(cx);
                }
            });
        } catch (RejectedExecutionException e) {
            counters.rejectedOverload.increment();
            LOG.debug("executor of {} full, answering 5.03: {}", resource.uri(), e.toString());
            cx.respondIfOpen(Overload.serviceUnavailable(request, overloadMaxAge).peer(exchange.peer()).build());
            drain.finished(cx);
        }
    }

    /** Accepts an observe registration if it is one and fits; returns its sequence number or -1. */
    private int register(Exchange exchange, Resource resource) {
        ObserveRelation relation = ObserveRelation.of(exchange);
        if (relation == null || !(resource instanceof CoapResource c) || !c.isObservable()) {
            return -1;
        }
        int seq = c.observers().tryAdd(relation, this, responder, maxObserversPerResource, observerBudget);
        if (seq < 0) {
            counters.observeRejected.increment();
        } else {
            relation.setNotificationType(c.getObserveType());
        }
        return seq;
    }

    /**
     * Starts a notification of {@code observer} (RFC 7641 §4.2) on the protocol stage, off the
     * caller's thread (see {@link NotificationDispatcher}).
     */
    void notify(CoapResource resource, ObserverSet.Observer observer, int seq) {
        dispatcher.submit(resource, observer, seq);
    }

    /** Runs the handler of {@code resource} for one notification of {@code observer}, on its executor if it has one. */
    void runNotification(CoapResource resource, ObserverSet.Observer observer, int seq) {
        CoapExchange cx = new CoapExchange(observer.relation().exchange(), resource, observer.responder(), seq, true);
        Executor executor = resource.effectiveExecutor();
        if (executor == null) {
            invoke(resource, cx);
            return;
        }
        try {
            executor.execute(() -> invoke(resource, cx));
        } catch (RejectedExecutionException e) {
            counters.notificationsSkipped.increment(); // the next change notifies again
        }
    }

    private void invoke(Resource resource, CoapExchange cx) {
        try {
            if (interceptors.length == 0) {
                resource.handleRequest(cx);
            } else {
                new InterceptorChain(interceptors, 0, cx, resource).proceed();
            }
        } catch (VirtualMachineError e) {
            // out of memory and the like: nothing sensible to answer; a stack overflow is local
            if (!(e instanceof StackOverflowError)) {
                throw e;
            }
            fail(resource, cx, e);
        } catch (Throwable t) {
            fail(resource, cx, t);
        }
    }

    private void fail(Resource resource, CoapExchange cx, Throwable t) {
        counters.handlerErrors.increment();
        long held = failureLog.tryAcquire();
        if (held >= 0) {
            // the exception's text may quote the request (a query, a payload): escaped here, the
            // stack trace (unescaped) at DEBUG
            LOG.warn("handler of {} threw on {} {} ({} more handler failures since the last report; all"
                    + " are counted): {}", resource.uri(), cx.method(), cx, held, SafeText.forLog(t.toString()));
            LOG.debug("the handler's stack trace", t);
        }
        // the exception's text may name internals or echo attacker input: only when asked for
        byte[] diagnostic = diagnostics ? diagnostic(t) : new byte[0];
        Response.Builder b = Response.forRequest(cx.request(), Code.INTERNAL_SERVER_ERROR).peer(cx.peer())
                .payload(diagnostic);
        if (diagnostic.length > 0) {
            b.options().contentFormat(0);
        }
        if (!cx.respondIfOpen(b.build())) {
            LOG.debug("handler of {} had answered before throwing; no 5.00 sent", resource.uri());
        }
    }

    /** "SimpleClassName: message", UTF-8, at most {@link #MAX_DIAGNOSTIC_BYTES} bytes. */
    static byte[] diagnostic(Throwable t) {
        String text = t.getMessage() == null ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + t.getMessage();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_DIAGNOSTIC_BYTES) {
            return bytes;
        }
        int end = MAX_DIAGNOSTIC_BYTES;
        // do not cut a UTF-8 sequence: back up over continuation bytes (10xxxxxx)
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return Arrays.copyOf(bytes, end);
    }

    private static Response.Builder answer(Exchange exchange, Request request, Code code) {
        return Response.forRequest(request, code).peer(exchange.peer());
    }

    /** A resource exists at the request's path and takes its method. */
    @Override
    public boolean accepts(Request request) {
        if (drain.isDraining() && !DrainGate.continuesTransfer(request)) {
            return false; // no block-wise state for a transfer that would start while draining
        }
        Resource resource = tree.find(request.options());
        return resource != null && resource.allowsMethod(request.code());
    }

    @Override
    public void deliverResponse(Exchange exchange, Response response) {
        LOG.debug("server stage ignores response {} on {}", response, exchange);
    }

    /** The interceptors from {@code index} on, then the handler. */
    private record InterceptorChain(HandlerInterceptor[] interceptors, int index, CoapExchange exchange,
            Resource resource) implements HandlerInterceptor.Chain {
        @Override
        public void proceed() throws Exception {
            if (index < interceptors.length) {
                interceptors[index].intercept(new InterceptorChain(interceptors, index + 1, exchange, resource));
            } else {
                resource.handleRequest(exchange);
            }
        }
    }
}
