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
    private static final Runnable[] NO_HOOKS = new Runnable[0];

    // the Origin as a boolean packs next to `complete`: 64 B per exchange instead of 72
    private final boolean local;
    private volatile EndpointContext peer; // moves only with a DTLS session that moved (movePeer)
    private volatile Request request;
    private final long createdNanos;
    private final Listener listener;

    private volatile Request currentRequest;
    private volatile Response currentResponse;
    private volatile boolean complete;
    private volatile Throwable failure;
    private Object[] state = NO_STATE;
    private Runnable[] hooks = NO_HOOKS;
    private int hookCount;
    // the request's datagram size (high 16 bits) and the bytes sent in answer so far (low 16,
    // saturating): the amplification limit of RFC 7252 §11.3 in one field
    private int amplification;
    private Thread owner;

    /**
     * @param request the request as the application sent it ({@code LOCAL}) or as it arrived
     *        ({@code REMOTE}); for blockwise transfers the layers keep the block on the wire in
     *        {@link #currentRequest()}
     * @param listener outcome callback of a {@code LOCAL} exchange; {@code null} for {@code REMOTE}
     */
    public Exchange(Origin origin, Request request, EndpointContext peer, long createdNanos, Listener listener) {
        this.local = Objects.requireNonNull(origin, "origin") == Origin.LOCAL;
        this.request = Objects.requireNonNull(request, "request");
        this.peer = Objects.requireNonNull(peer, "peer");
        this.createdNanos = createdNanos;
        this.listener = listener;
        this.currentRequest = request;
    }

    /** Whether this endpoint sent the request ({@link Origin#LOCAL}, client side). */
    public boolean isLocal() {
        return local;
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

    public Listener listener() {
        return listener;
    }

    public boolean isComplete() {
        return complete;
    }

    /** Why the exchange failed, or {@code null} when it completed normally or is still open. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Registers {@code hook} to run once when the exchange completes or fails, on the completing
     * thread; runs it at once if the exchange is already complete. Layers and the store use hooks
     * to free what they hold, so completion anywhere cleans up everywhere.
     */
    public void whenComplete(Runnable hook) {
        boolean runNow;
        synchronized (this) {
            runNow = complete;
            if (!runNow) {
                if (hookCount == hooks.length) {
                    hooks = Arrays.copyOf(hooks, Math.max(4, hookCount * 2));
                }
                hooks[hookCount++] = hook;
            }
        }
        if (runNow) {
            hook.run();
        }
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
        Runnable[] toRun;
        int n;
        synchronized (this) {
            if (complete) {
                return false;
            }
            failure = cause;
            complete = true;
            toRun = hooks;
            n = hookCount;
            hooks = NO_HOOKS;
            hookCount = 0;
        }
        for (int i = 0; i < n; i++) {
            toRun[i].run();
        }
        // The listener hears of a failure last, once every hook has freed what the exchange held,
        // so an application that reacts (or a test that checks the store) sees a clean endpoint.
        if (cause != null && listener != null) {
            listener.onFailure(this, cause);
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
        return slot.index < s.length ? slot.type.cast(s[slot.index]) : null;
    }

    /** Sets (or with {@code null}, clears) this layer's state. Caller holds the exchange. */
    public <T> void set(Slot<T> slot, T value) {
        if (slot.index >= state.length) {
            if (value == null) {
                return;
            }
            state = Arrays.copyOf(state, Math.max(slot.index + 1, 4));
        }
        state[slot.index] = value;
    }

    @Override
    public String toString() {
        return "Exchange[" + (local ? Origin.LOCAL : Origin.REMOTE) + " " + peer + " " + request.code() + " token=" + request.token() + "]";
    }
}
