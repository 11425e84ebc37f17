package io.stagecoach.core.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Payload;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.server.internal.ContentFormatSets;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.PeerPrincipal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a resource handler sees of one request: the request's fields and the ways to answer it.
 *
 * <p><b>Exactly one answer.</b> A handler answers once, with a {@code respond(...)} form or
 * {@link #reject()}; a second answer throws {@link IllegalStateException}. {@link #accept()} may
 * come first to send an empty ACK and respond later, from any thread (RFC 7252 §5.2.2). Observe
 * notifications do not go through this object (they are sent by the observe machinery later).
 * A handler that returns without answering leaves the exchange to the message layer's lifetime.
 *
 * <p>Responses get the request's token and peer (RFC 7252 §5.3.2); type and MID are chosen by the
 * message layer.
 *
 * <p><b>Kept past the call.</b> A handler may keep this object and use it later and from any
 * thread: to answer after {@link #accept()} or after returning, to read the request, or to find
 * the answer given. When the handler ran on the protocol thread and answered before returning,
 * the server lets the endpoint reuse the protocol-stage {@link Exchange} for a later request (no
 * exchange object per request); this object then keeps only the request. So the one thing that
 * differs for a handler that keeps it: {@link #exchange()}, first asked for after such a call
 * returned, gives a completed stand-in with the same request and peer instead of the exchange
 * itself. A handler or interceptor that asks for {@link #exchange()} while it runs gets the
 * exchange itself, which is then never reused.
 */
public final class CoapExchange {

    private static final int OPEN = 0;
    private static final int ACCEPTED = 1;
    private static final int ANSWERED = 2;
    private static final int PROGRESS = 3; // the bits of `word` that hold OPEN, ACCEPTED or ANSWERED
    private static final int NOTIFICATION = 4;
    private static final int SEQ_SHIFT = 3; // bits 3..27 hold the Observe sequence + 1 (0: none)
    private static final int SEQ_MASK = (1 << 25) - 1;
    private static final int ESCAPED = 1 << 28; // exchange() handed the exchange out: never detached
    private static final int DETACHED = 1 << 29; // the exchange was released for reuse: target is the request
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CoapExchange.class, "word", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // The exchange, or once detached (see the class comment) its request: one field keeps this
    // object at 32 B. Read through request() / peer(), which never return a reused exchange's.
    private volatile Object target;
    private final Resource resource;
    private final ExchangeResponder responder;
    // The answer's progress (OPEN, ACCEPTED or ANSWERED, changed through STATE), the notification
    // flag and the Observe sequence in one int: 32 B per request instead of 40 with three fields
    private volatile int word;
    private volatile Map<String, String> query;

    CoapExchange(Exchange exchange, Resource resource, ExchangeResponder responder) {
        this(exchange, resource, responder, -1, false);
    }

    /**
     * @param observeSeq the Observe value a 2.xx answer carries (RFC 7641 §4.4): the resource's
     *        sequence number for an accepted registration or a notification; -1 for none
     * @param notification whether this is a handler run for a notification of an established
     *        relation rather than an answer to a request that just arrived
     */
    CoapExchange(Exchange exchange, Resource resource, ExchangeResponder responder, int observeSeq,
            boolean notification) {
        this.target = Objects.requireNonNull(exchange, "exchange");
        this.resource = resource;
        this.responder = Objects.requireNonNull(responder, "responder");
        if (observeSeq < -1 || observeSeq > 0xFF_FFFF) {
            throw new IllegalArgumentException("Observe sequence must be 0..2^24-1 or -1 (RFC 7641 §3.4), got "
                    + observeSeq);
        }
        this.word = (observeSeq + 1) << SEQ_SHIFT | (notification ? NOTIFICATION : 0) | OPEN;
    }

    /** The Observe value a 2.xx answer carries, or -1. */
    private int observeSeq() {
        return ((word >>> SEQ_SHIFT) & SEQ_MASK) - 1;
    }

    private int progress() {
        return word & PROGRESS;
    }

    /** Moves the progress from OPEN to {@code to}; false when it was not OPEN. */
    private boolean leaveOpen(int to) {
        int w = word;
        while ((w & PROGRESS) == OPEN) {
            if (STATE.compareAndSet(this, w, w | to)) {
                return true;
            }
            w = word;
        }
        return false;
    }

    /** Moves the progress to ANSWERED; false when it was ANSWERED already. */
    private boolean markAnswered() {
        int w = word;
        while ((w & PROGRESS) != ANSWERED) {
            if (STATE.compareAndSet(this, w, (w & ~PROGRESS) | ANSWERED)) {
                return true;
            }
            w = word;
        }
        return false;
    }

    /**
     * Whether the handler runs to produce an observe notification (RFC 7641 §4.2) rather than to
     * answer a fresh request. The request is then the registration; the answer goes to the observer.
     */
    public boolean isNotification() {
        return (word & NOTIFICATION) != 0;
    }

    // --- the request -----------------------------------------------------------------------------

    public Request request() {
        Object t = target;
        if (t instanceof Exchange e) {
            Request r = e.request();
            if (target == e) {
                return r; // read before any detach: the exchange was not reused yet
            }
            t = target;
        }
        return (Request) t;
    }

    /** The peer the answer goes to: the exchange's while attached, else the request's. */
    EndpointContext peer() {
        Object t = target;
        if (t instanceof Exchange e) {
            EndpointContext p = e.peer();
            if (target == e) {
                return p;
            }
            t = target;
        }
        return ((Request) t).peer();
    }

    /**
     * The protocol-stage exchange, for advanced use (e.g. attributes of the endpoint context).
     * Asked for while the handler runs (or before it answered), it is the exchange itself, which
     * the endpoint then never reuses. Asked for first after a handler that ran on the protocol
     * thread answered and returned, it is a completed exchange with the same request and peer
     * (see the class comment), a new one on each call.
     */
    public Exchange exchange() {
        int w = word;
        while ((w & (ESCAPED | DETACHED)) == 0) {
            if (STATE.compareAndSet(this, w, w | ESCAPED)) {
                return (Exchange) target; // never detached from now on
            }
            w = word;
        }
        if ((w & ESCAPED) != 0) {
            return (Exchange) target;
        }
        Request r = request();
        Exchange done = new Exchange(Exchange.Origin.REMOTE, r, r.peer(), r.receiveNanos(), null);
        done.complete();
        return done;
    }

    /** The exchange while attached, without handing it out; {@code null} once detached. */
    Exchange attached() {
        return target instanceof Exchange e ? e : null;
    }

    /** Whether this request needs nothing more: answered, or its exchange ended otherwise. */
    boolean isDone() {
        if (isAnswered()) {
            return true;
        }
        Exchange e = attached();
        return e == null || e.isComplete();
    }

    /**
     * Lets the endpoint reuse the exchange (see the class comment): called by the server on the
     * protocol thread, holding the exchange, after a handler that ran there returned. Does
     * nothing unless this exchange was answered, nobody was given the exchange
     * ({@link #exchange()}), and the exchange agrees ({@link Exchange#release()}: complete, no
     * layer keeps it). From then on this object reaches the request only.
     */
    void detach() {
        int w = word;
        if ((w & PROGRESS) != ANSWERED || (w & (ESCAPED | DETACHED)) != 0 || isNotification()
                || !(target instanceof Exchange e) || !e.release()) {
            return;
        }
        while (!STATE.compareAndSet(this, w, w | DETACHED)) {
            w = word;
            if ((w & ESCAPED) != 0) {
                e.retain(); // exchange() handed it out meanwhile: it stays the exchange
                return;
            }
        }
        target = e.request(); // before the endpoint may reuse the exchange (after this returns)
    }

    /** The resource the request was delivered to. */
    public Resource resource() {
        return resource;
    }

    public Code method() {
        return request().code();
    }

    /** A copy of the request payload; empty when there is none. */
    public byte[] payload() {
        return request().payload();
    }

    /** The payload decoded as UTF-8. */
    public String payloadText() {
        return request().payloadString();
    }

    public OptionSet options() {
        return request().options();
    }

    /** Content-Format of the request payload (RFC 7252 §5.10.3), or {@code null} when it has none. */
    public ContentFormat requestContentFormat() {
        int number = request().options().contentFormat();
        return number < 0 ? null : ContentFormat.valueOf(number);
    }

    /**
     * The request's Accept option (RFC 7252 §5.10.4), or {@code null} when it has none. (Named so
     * because {@link #accept()} is the empty ACK, as in Californium.)
     */
    public ContentFormat acceptFormat() {
        int number = request().options().accept();
        return number < 0 ? null : ContentFormat.valueOf(number);
    }

    public InetSocketAddress sourceAddress() {
        return peer().peer();
    }

    /**
     * Who the client proved to be in its DTLS handshake ({@code coaps}, RFC 7252 §9.1.3): its PSK
     * identity, certificate subject or raw public key; empty over an unauthenticated transport.
     * The basis for authorization in a handler or a {@link HandlerInterceptor}.
     */
    public Optional<PeerPrincipal> principal() {
        return PeerPrincipal.of(peer());
    }

    /**
     * The Uri-Query arguments as a map: {@code k=v} gives {@code k -> v}, a bare {@code k} gives
     * {@code k -> ""} (RFC 7252 §6.5 splits at the first '='). A repeated key keeps its first value;
     * read {@link OptionSet#uriQuery()} for all of them.
     */
    public Map<String, String> queryParameters() {
        Map<String, String> q = query;
        if (q == null) {
            q = parseQuery(request().options().uriQuery());
            query = q;
        }
        return q;
    }

    /** The value of query argument {@code key} ({@code ""} for a bare key), or {@code null}. */
    public String query(String key) {
        return queryParameters().get(key);
    }

    static Map<String, String> parseQuery(List<String> args) {
        if (args.isEmpty()) {
            return Map.of();
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            String k = eq < 0 ? a : a.substring(0, eq);
            String v = eq < 0 ? "" : a.substring(eq + 1);
            m.putIfAbsent(k, v);
        }
        return Collections.unmodifiableMap(m);
    }

    // --- answering -------------------------------------------------------------------------------

    /** Responds with {@code code} and no payload. */
    public void respond(Code code) {
        send(code, answer(code));
    }

    /** Responds 2.05 Content with {@code text} as text/plain;charset=utf-8 (Content-Format 0). */
    public void respond(String text) {
        respond(Code.CONTENT, text);
    }

    /** Responds {@code code} with {@code text} as text/plain;charset=utf-8 (Content-Format 0). */
    public void respond(Code code, String text) {
        // payload(String) encodes once; respond(code, bytes, 0) would copy the bytes again (~32 B).
        // A CoapResource keeps a text it answers with every time encoded (RecentText): no array.
        Response.Builder b = answer(code);
        if (resource instanceof CoapResource r) {
            b.payload(r.recentText().encode(text));
        } else {
            b.payload(text);
        }
        send(code, b.options(ContentFormatSets.only(0)));
    }

    /**
     * Responds {@code code} with a body prepared once, in {@code format}: the response shares the
     * immutable {@link Payload} instead of copying it.
     */
    public void respond(Code code, Payload payload, ContentFormat format) {
        send(code, answer(code).payload(payload).options(ContentFormatSets.only(format.number())));
    }

    /** Responds {@code code} with {@code payload} in {@code format}. */
    public void respond(Code code, byte[] payload, ContentFormat format) {
        Response.Builder b = answer(code).payload(payload);
        send(code, b.options(ContentFormatSets.only(format.number()))); // shared set: no OptionSet built (~200 B)
    }

    /** Responds {@code code} after {@code spec} set payload and options (see {@link ResponseSpec}). */
    public void respond(Code code, Consumer<ResponseSpec> spec) {
        Response.Builder b = answer(code);
        spec.accept(new ResponseSpec(b));
        send(code, b);
    }

    /** Responds with the builder's message; its token and peer are replaced by the request's. */
    public void respond(Response.Builder response) {
        send(null, response);
    }

    /** Responds with {@code response}; its token and peer are replaced by the request's. */
    public void respond(Response response) {
        Response r = response.withToken(request().token()).withPeer(peer());
        int observeSeq = observeSeq();
        if (observeSeq >= 0 && r.code().isSuccess()) {
            Response.Builder b = r.newBuilder();
            b.options().observe(observeSeq);
            r = b.build();
        }
        finish();
        responder.respond(exchangeToAnswer(), r);
    }

    /**
     * The exchange an answer that has just marked this object answered goes to. The exchange is
     * detached only after the handler answered and returned, so an answer that won the mark
     * finds it attached.
     */
    private Exchange exchangeToAnswer() {
        return (Exchange) target;
    }

    /**
     * Sends an empty ACK now for a CON request; the response follows separately
     * (RFC 7252 §5.2.2). IllegalStateException if already accepted or answered.
     */
    public void accept() {
        if (!leaveOpen(ACCEPTED)) {
            throw new IllegalStateException("exchange already " + stateName() + ": " + this);
        }
        if (!isNotification()) { // a notification answers no request: there is nothing to acknowledge
            responder.accept(exchangeToAnswer());
        }
    }

    /** Answers with a RST instead of a response. IllegalStateException if already accepted or answered. */
    public void reject() {
        if (!leaveOpen(ANSWERED)) {
            throw new IllegalStateException("exchange already " + stateName() + ": " + this);
        }
        responder.reject(exchangeToAnswer());
    }

    /** Whether a response or RST has been sent. */
    public boolean isAnswered() {
        return progress() == ANSWERED;
    }

    /** Whether {@link #accept()} was called and no response sent yet. */
    public boolean isAccepted() {
        return progress() == ACCEPTED;
    }

    /**
     * Sends {@code response} unless the exchange is answered already; for the deliverer's error
     * answers, which must not throw over a handler's own answer.
     */
    boolean respondIfOpen(Response response) {
        if (markAnswered()) {
            responder.respond(exchangeToAnswer(), response);
            return true;
        }
        return false;
    }

    /**
     * A builder for the answer to a plain CON request typed as the piggybacked ACK it most likely
     * becomes (RFC 7252 §5.2.1): the reliability layer then sends it as built instead of copying
     * it with type and MID (48 B per request). Should the request have been acknowledged already,
     * that layer turns it into a separate response with a MID of its own (§5.2.2). Observe answers
     * and notifications stay untyped: the observe layer chooses their type.
     */
    private Response.Builder answer(Code code) {
        Request request = request();
        Response.Builder b = Response.forRequest(request, code);
        if (request.type() == Type.CON && observeSeq() < 0 && !isNotification()) {
            b.type(Type.ACK).mid(request.mid());
        }
        return b;
    }

    /** @param code the response code when the caller knows it (saves a second build for Observe) */
    private void send(Code code, Response.Builder b) {
        b.tokenOf(request()).peer(peer());
        int observeSeq = observeSeq();
        if (observeSeq >= 0 && code != null && code.isSuccess()) {
            b.options().observe(observeSeq); // set here, at the resource, in changed() order (Lanter §5.4)
        }
        // build before marking answered: a builder that throws leaves the exchange open for the 5.00
        Response r = b.build();
        if (observeSeq >= 0 && code == null && r.code().isSuccess()) {
            Response.Builder o = r.newBuilder();
            o.options().observe(observeSeq);
            r = o.build();
        }
        finish();
        responder.respond(exchangeToAnswer(), r);
    }

    private void finish() {
        if (markAnswered()) {
            return;
        }
        throw new IllegalStateException("exchange already answered (respond twice?): " + this);
    }

    private String stateName() {
        return progress() == ACCEPTED ? "accepted" : "answered";
    }

    @Override
    public String toString() {
        Object t = target;
        return "CoapExchange[" + (t instanceof Exchange ? t : "answered " + t) + "]";
    }
}
