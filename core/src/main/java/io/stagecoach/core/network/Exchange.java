package io.stagecoach.core.network;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.elements.EndpointContext;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Everything an endpoint knows about one request and its response(s) (Lanter, thesis §5.2): the
 * request, the current response, who the peer is, where the exchange came from, whether it is
 * complete, and one small typed state object per layer that needs one.
 *
 * <p><b>Serialization rule.</b> Work on one exchange is serialized: every inbound message, timer
 * and outbound message that touches an exchange runs inside {@link #execute(Runnable)}, which
 * holds the exchange's monitor. Layers may therefore read and write their state without further
 * locking, and call {@link #assertOwned()} to check the rule. Code holding one exchange never
 * waits for another's (hand such work to the protocol stage instead), so the rule cannot deadlock.
 *
 * <p>Per-layer state lives in {@link Slot}s the layer declares as constants; the exchange stores
 * them in a small array and knows nothing of their types, so adding a layer never grows this class.
 *
 * <p><b>Reuse.</b> A {@link Origin#REMOTE} exchange answered within the call that received its
 * request, and that nobody can reach any more, may serve the next request its thread receives
 * instead of a new one (56 B per request): the upper stage {@linkplain #release() releases} it
 * (it gave the exchange to no code that may keep it), the endpoint {@linkplain #recycle()
 * recycles} it once the call returned, and {@link #remote} hands it out again on that thread.
 * Release refuses an exchange a layer keeps state or a completion hook in, so a layer that holds
 * an exchange in a slot, a timer or a store (all of which come with one of those) keeps it out
 * of reuse; a stack with a layer that may hold exchanges otherwise
 * ({@code Layer.keepsExchanges()}) recycles none.
 */
public final class Exchange {

    /** Where the request of an exchange came from. */
    public enum Origin {
        /** This endpoint sent the request (client side). */
        LOCAL,
        /** A peer sent the request to this endpoint (server side). */
        REMOTE
    }

    /**
     * Receives the outcome of a {@link Origin#LOCAL} exchange. Called on protocol threads; a
     * failure is reported after the exchange's completion hooks ran.
     */
    public interface Listener {
        /** A response arrived (for observe, each notification). */
        void onResponse(Exchange exchange, Response response);

        /** The exchange failed: timeout, RST, cancel, or a send error; {@code cause} says which. */
        void onFailure(Exchange exchange, Throwable cause);
    }

    /** A typed place for one layer's state in every exchange; declare as a constant. */
    public static final class Slot<T> {
        private static final AtomicInteger COUNT = new AtomicInteger();
        private final int index;
        private final String name;
        private final Class<T> type;

        public Slot(String name, Class<T> type) {
            this.name = Objects.requireNonNull(name, "name");
            this.type = Objects.requireNonNull(type, "type");
            this.index = COUNT.getAndIncrement();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final Object[] NO_STATE = new Object[0];
    /** The outcome of an exchange that completed normally. */
    private static final Object DONE = new Object();
    /** The outcome of an exchange that completed normally and was released for reuse. */
    private static final Object RELEASED = new Object();
    /** Per thread: a recycled exchange that {@link #remote} hands out next, or null. */
    private static final ThreadLocal<Exchange[]> SPARE = ThreadLocal.withInitial(() -> new Exchange[1]);
    /** The listener field of a LOCAL exchange created without a listener. */
    private static final Listener NONE = new Listener() {
        @Override
        public void onResponse(Exchange exchange, Response response) {
        }

        @Override
        public void onFailure(Exchange exchange, Throwable cause) {
        }
    };

    // The fields are folded so that an exchange takes 56 B instead of 72 (one per request): the
    // origin is whether `listener` is set (NONE for a LOCAL exchange without one), completion and
    // failure share `outcome`, and the completion hooks live in the first cell of `state`.
    private volatile EndpointContext peer; // moves only with a DTLS session that moved (movePeer)
    private volatile Request request;
    private long createdNanos; // set again when a released REMOTE exchange is reused
    private final Listener listener; // null for REMOTE

    private volatile Request currentRequest;
    private volatile Response currentResponse;
    private volatile Object outcome; // null while open, DONE, RELEASED, or the Throwable it failed with
    // [0]: the completion hooks (a null-terminated Runnable[]) or null; [1 + slot index]: layer state
    private Object[] state = NO_STATE;
    // the request's datagram size (high 16 bits) and the bytes sent in answer so far (low 16,
    // saturating): the amplification limit of RFC 7252 §11.3 in one field
    private int amplification;
    private Thread owner;
    // the transport's own completion hook, which is also its state of this exchange: one object
    // where a slot, a hook array and a lambda cost about 110 B per request over TCP (8 B here)
    private Runnable transportHook;

    /**
     * @param request the request as the application sent it ({@code LOCAL}) or as it arrived
     *        ({@code REMOTE}); for blockwise transfers the layers keep the block on the wire in
     *        {@link #currentRequest()}
     * @param listener outcome callback of a {@code LOCAL} exchange, or {@code null}; must be
     *        {@code null} for {@code REMOTE}
     * @throws IllegalArgumentException for a {@code REMOTE} exchange with a listener
     */
    public Exchange(Origin origin, Request request, EndpointContext peer, long createdNanos, Listener listener) {
        boolean local = Objects.requireNonNull(origin, "origin") == Origin.LOCAL;
        if (!local && listener != null) {
            throw new IllegalArgumentException("a REMOTE exchange has no listener: its outcome goes to the peer");
        }
        this.request = Objects.requireNonNull(request, "request");
        this.peer = Objects.requireNonNull(peer, "peer");
        this.createdNanos = createdNanos;
        this.listener = local && listener == null ? NONE : listener;
        this.currentRequest = request;
    }

    /**
     * A {@link Origin#REMOTE} exchange for a request that arrived: the one this thread
     * {@linkplain #recycle() recycled} last, set to the new request, or else a new one.
     */
    public static Exchange remote(Request request, EndpointContext peer, long createdNanos) {
        Exchange[] spare = SPARE.get();
        Exchange e = spare[0];
        if (e == null) {
            return new Exchange(Origin.REMOTE, request, peer, createdNanos, null);
        }
        spare[0] = null; // taken: a request received within this one's call gets another
        e.reuse(Objects.requireNonNull(request, "request"), Objects.requireNonNull(peer, "peer"), createdNanos);
        return e;
    }

    private void reuse(Request request, EndpointContext peer, long createdNanos) {
        // plain writes before the volatile ones: the next holder of the monitor sees them all
        this.state = NO_STATE;
        this.amplification = 0;
        this.createdNanos = createdNanos;
        this.currentResponse = null;
        this.peer = peer;
        this.request = request;
        this.currentRequest = request;
        this.outcome = null;
    }

    /**
     * Marks a {@link Origin#REMOTE} exchange that completed normally as free for reuse: the upper
     * stage declares that it keeps no reference to it and gave it to no code that may keep one.
     * Refused (false) while the exchange is open or failed, for a LOCAL one, and when a layer
     * keeps state or a completion hook in it (a transport hook too). After a successful release nothing may touch the
     * exchange except the endpoint's {@link #recycle()}; {@link #retain()} takes the release back.
     * Caller holds the exchange.
     */
    public boolean release() {
        synchronized (this) {
            if (outcome != DONE || listener != null || state != NO_STATE || transportHook != null) {
                return false;
            }
            outcome = RELEASED;
            return true;
        }
    }

    /** Takes back a {@link #release()}: the exchange stays complete and is not reused. */
    public void retain() {
        synchronized (this) {
            if (outcome == RELEASED) {
                outcome = DONE;
            }
        }
    }

    /**
     * For the endpoint, once the call that received the request returned: keeps a
     * {@linkplain #release() released} exchange for the next {@link #remote} on this thread.
     * False (and nothing kept) when it was not released or a layer set state in it since.
     */
    public boolean recycle() {
        if (outcome != RELEASED || state != NO_STATE || owner != null) {
            return false;
        }
        SPARE.get()[0] = this;
        return true;
    }

    /** Whether this endpoint sent the request ({@link Origin#LOCAL}, client side). */
    public boolean isLocal() {
        return listener != null;
    }

    public EndpointContext peer() {
        return peer;
    }

    /**
     * The peer answers from another address in the same security association: a DTLS session
     * with a connection ID that moved (RFC 9146 §6). Later messages of this exchange go to
     * {@code moved}. For the endpoint, which re-registers the exchange's keys at the same time
     * ({@code ExchangeStore.move}); the caller holds the exchange.
     */
    public void movePeer(EndpointContext moved) {
        this.peer = Objects.requireNonNull(moved, "moved");
    }

    /** The whole request (for a blockwise upload: as the application sees it). */
    public Request request() {
        return request;
    }

    /**
     * Replaces the request the upper stage sees: one reassembled from blocks (RFC 7959 §2.5), or
     * the inner request a layer unsealed. The message on the wire stays in
     * {@link #currentRequest()}. Called by layers, holding the exchange.
     */
    public void setRequest(Request whole) {
        this.request = Objects.requireNonNull(whole, "request");
    }

    /** The request message currently on the wire (a block, a re-registration...). */
    public Request currentRequest() {
        return currentRequest;
    }

    public void setCurrentRequest(Request r) {
        this.currentRequest = Objects.requireNonNull(r, "request");
    }

    /** The latest response sent or received, or {@code null}. */
    public Response currentResponse() {
        return currentResponse;
    }

    public void setCurrentResponse(Response r) {
        this.currentResponse = r;
    }

    /**
     * Size of the request's datagram as received (for the amplification limit, RFC 7252 §11.3);
     * 0 when unknown, e.g. for a request this endpoint sent.
     */
    public int requestBytes() {
        return amplification >>> 16;
    }

    /** Sets {@link #requestBytes()}; the endpoint does when the request arrives. */
    public void setRequestBytes(int bytes) {
        amplification = Math.min(bytes, 0xFFFF) << 16 | (amplification & 0xFFFF);
    }

    /** Bytes this endpoint sent in answer to the request so far, counted up to 65,535. Caller holds the exchange. */
    public int sentBytes() {
        return amplification & 0xFFFF;
    }

    /** Adds to {@link #sentBytes()}. Caller holds the exchange. */
    public void addSentBytes(int bytes) {
        int sent = Math.min(0xFFFF, (amplification & 0xFFFF) + bytes);
        amplification = (amplification & 0xFFFF_0000) | sent;
    }

    /** Clock reading when the exchange was created. */
    public long createdNanos() {
        return createdNanos;
    }

    /** The outcome callback of a {@code LOCAL} exchange, or {@code null}. */
    public Listener listener() {
        return listener == NONE ? null : listener;
    }

    public boolean isComplete() {
        return outcome != null;
    }

    /** Why the exchange failed, or {@code null} when it completed normally or is still open. */
    public Throwable failure() {
        return outcome instanceof Throwable t ? t : null;
    }

    /**
     * Registers {@code hook} to run once when the exchange completes or fails, on the completing
     * thread; runs it at once if the exchange is already complete. Layers and the store use hooks
     * to free what they hold, so completion anywhere cleans up everywhere.
     */
    public void whenComplete(Runnable hook) {
        boolean runNow;
        Objects.requireNonNull(hook, "hook");
        synchronized (this) {
            runNow = outcome != null;
            if (!runNow) {
                if (state.length == 0) {
                    state = new Object[4];
                }
                Runnable[] hooks = (Runnable[]) state[0];
                int n = 0;
                if (hooks == null) {
                    hooks = new Runnable[4];
                    state[0] = hooks;
                } else {
                    while (n < hooks.length && hooks[n] != null) {
                        n++;
                    }
                    if (n == hooks.length) {
                        hooks = Arrays.copyOf(hooks, n * 2);
                        state[0] = hooks;
                    }
                }
                hooks[n] = hook;
            }
        }
        if (runNow) {
            hook.run();
        }
    }

    /**
     * Registers the completion hook of the transport under the stack (at most one per exchange),
     * which runs before the {@link #whenComplete} hooks, on the completing thread, or at once if the
     * exchange is already complete. The transport finds its own state of the exchange through
     * {@link #transportHook()}, so that it needs neither a {@link Slot} nor a separate hook.
     *
     * @throws IllegalStateException if the exchange has a transport hook already
     */
    public void setTransportHook(Runnable hook) {
        Objects.requireNonNull(hook, "hook");
        synchronized (this) {
            if (outcome == null) {
                if (transportHook != null) {
                    throw new IllegalStateException("exchange " + this + " has a transport hook already");
                }
                transportHook = hook;
                return;
            }
        }
        hook.run();
    }

    /**
     * The hook given to {@link #setTransportHook}, or {@code null}; it stays after completion. Caller
     * holds the exchange, or registered the hook itself.
     */
    public Runnable transportHook() {
        return transportHook;
    }

    /**
     * Completes the exchange normally; only the first completion counts and runs the hooks.
     *
     * @return {@code true} for the call that completed it
     */
    public boolean complete() {
        return finish(null);
    }

    /** Completes the exchange with a failure; returns {@code true} for the first completion. */
    public boolean fail(Throwable cause) {
        return finish(Objects.requireNonNull(cause, "cause"));
    }

    private boolean finish(Throwable cause) {
        Runnable[] toRun = null;
        Runnable first;
        synchronized (this) {
            if (outcome != null) { // DONE, RELEASED or a failure
                return false;
            }
            outcome = cause == null ? DONE : cause;
            first = transportHook;
            if (state.length > 0) {
                toRun = (Runnable[]) state[0];
                state[0] = null;
            }
        }
        if (first != null) {
            first.run();
        }
        for (int i = 0; toRun != null && i < toRun.length && toRun[i] != null; i++) {
            toRun[i].run();
        }
        // The listener hears of a failure last, once every hook has freed what the exchange held,
        // so an application that reacts (or a test that checks the store) sees a clean endpoint.
        if (cause != null && listener != null) {
            listener.onFailure(this, cause); // NONE hears nothing
        }
        return true;
    }

    /**
     * Runs {@code work} with this exchange held by the calling thread; re-entrant. This is the one
     * way to touch an exchange (see the class comment).
     */
    public void execute(Runnable work) {
        synchronized (this) {
            Thread previous = owner;
            owner = Thread.currentThread();
            try {
                work.run();
            } finally {
                owner = previous;
            }
        }
    }

    /**
     * As {@link #execute(Runnable)} for work given the exchange: a caller can keep one such
     * consumer for all exchanges instead of building a task per call (24 B per request).
     */
    public void executeWith(Consumer<Exchange> work) {
        synchronized (this) {
            Thread previous = owner;
            owner = Thread.currentThread();
            try {
                work.accept(this);
            } finally {
                owner = previous;
            }
        }
    }

    /** Whether the calling thread holds this exchange through {@link #execute(Runnable)}. */
    public boolean isOwned() {
        return owner == Thread.currentThread();
    }

    /** Throws when the calling thread does not hold this exchange: a broken serialization rule. */
    public void assertOwned() {
        if (owner != Thread.currentThread()) {
            throw new IllegalStateException("exchange " + this + " used by " + Thread.currentThread().getName()
                    + " outside Exchange.execute");
        }
    }

    /** This layer's state, or {@code null}. Caller holds the exchange. */
    public <T> T get(Slot<T> slot) {
        Object[] s = state;
        int at = slot.index + 1;
        return at < s.length ? slot.type.cast(s[at]) : null;
    }

    /** Sets (or with {@code null}, clears) this layer's state. Caller holds the exchange. */
    public <T> void set(Slot<T> slot, T value) {
        int at = slot.index + 1;
        Object[] s = state;
        if (at < s.length) {
            s[at] = value;
            return;
        }
        if (value == null) {
            return;
        }
        synchronized (this) { // whenComplete may create the array too (for its hooks)
            if (at >= state.length) {
                state = Arrays.copyOf(state, Math.max(at + 1, 4));
            }
            state[at] = value;
        }
    }

    @Override
    public String toString() {
        return "Exchange[" + (isLocal() ? Origin.LOCAL : Origin.REMOTE) + " " + peer + " " + request.code() + " token=" + request.token() + "]";
    }
}
