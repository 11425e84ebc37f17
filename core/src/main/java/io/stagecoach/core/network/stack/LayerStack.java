package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The linked layers of one endpoint, top (next to the resources) to bottom (next to the network).
 *
 * <p>The standard stack of a UDP endpoint, top to bottom: {@value #CLEANUP}, {@value #OBSERVE},
 * {@value #BLOCKWISE}, {@value #ECHO}, {@value #TOKEN}, {@value #RELIABILITY}. An expert edits it with a
 * {@link Builder} handed out by the endpoint and server builders ({@code layers(...)}): insert a
 * layer {@linkplain Builder#addAbove above} or {@linkplain Builder#addBelow below} a named one,
 * {@linkplain Builder#replace replace} or {@linkplain Builder#remove remove} one.
 *
 * <p>Built once by {@link LayerStack.Builder}; the stack is then immutable. Outgoing messages enter
 * at the top ({@link #sendRequest(Exchange, Request)} ...) and leave through the {@link Outbox};
 * incoming ones enter at the bottom ({@link #receiveRequest(Exchange, Request)} ...) and leave
 * through the {@link Inbox}. Calls run on the calling thread: the stack adds no hand-off.
 *
 * <p>A message skips the layers that would only pass it on: those that inherit the forwarding
 * method of {@link AbstractLayer} for it (in the standard stack a request passes four layers
 * instead of six, a response three). Each layer is a call the compiler cannot inline (the call
 * site sees every layer class), so a hop saved is a call saved per message; what reaches each
 * layer that acts is unchanged.
 */
public final class LayerStack {

    /** Completes client exchanges when their final response arrives (top of the standard stack). */
    public static final String CLEANUP = "exchange-cleanup";
    /** Observe relations and notifications (RFC 7641). */
    public static final String OBSERVE = "observe";
    /** Block-wise transfers (RFC 7959). */
    public static final String BLOCKWISE = "blockwise";
    /** Address verification with the Echo option (RFC 9175 §2), server and client side. */
    public static final String ECHO = "echo";
    /** Tokens of outgoing requests (RFC 7252 §5.3.1). */
    public static final String TOKEN = "token";
    /** Message types, acknowledgement, retransmission, congestion control (RFC 7252 §4). */
    public static final String RELIABILITY = "reliability";

    /** Where messages leave the bottom of the stack (the endpoint encodes and sends them). */
    public interface Outbox {
        void sendRequest(Exchange exchange, Request request);

        void sendResponse(Exchange exchange, Response response);

        void sendEmpty(Exchange exchange, EmptyMessage message);
    }

    /** Where messages leave the top of the stack (the upper stage: resource tree or client). */
    public interface Inbox {
        void deliverRequest(Exchange exchange, Request request);

        void deliverResponse(Exchange exchange, Response response);

        /** An empty message that reached the top; normally nothing to do. */
        default void deliverEmpty(Exchange exchange, EmptyMessage message) {
        }

        /**
         * Whether {@link #deliverRequest} would serve {@code request} (a resource exists and takes
         * its method); see {@link StackServices#accepts}. Default: {@code true}.
         */
        default boolean accepts(Request request) {
            return true;
        }
    }

    private final Layer[] layers;
    private final LayerContext[] contexts;
    // per direction, for each position: the layer there or the nearest one beyond it (toward the
    // network for send, toward the resources for receive) that does more than forward the message
    private final int[] sendRequestAt;
    private final int[] sendResponseAt;
    private final int[] sendEmptyAt;
    private final int[] receiveRequestAt;
    private final int[] receiveResponseAt;
    private final int[] receiveEmptyAt;
    private final List<String> names;
    private final Set<OptionNumber> options;
    private final StackServices services;
    private final Outbox outbox;
    private volatile Inbox inbox;

    private LayerStack(Builder b, StackServices services, Outbox outbox) {
        int n = b.layers.size();
        this.layers = b.layers.toArray(new Layer[0]);
        this.names = Collections.unmodifiableList(new ArrayList<>(b.names));
        this.contexts = new LayerContext[n];
        for (int i = 0; i < n; i++) {
            contexts[i] = new LayerContext(this, i, names.get(i));
        }
        Set<OptionNumber> claimed = new HashSet<>();
        for (Layer layer : layers) {
            claimed.addAll(layer.options());
        }
        this.options = Set.copyOf(claimed);
        this.sendRequestAt = actingToward(+1, "sendRequest", Request.class);
        this.sendResponseAt = actingToward(+1, "sendResponse", Response.class);
        this.sendEmptyAt = actingToward(+1, "sendEmpty", EmptyMessage.class);
        this.receiveRequestAt = actingToward(-1, "receiveRequest", Request.class);
        this.receiveResponseAt = actingToward(-1, "receiveResponse", Response.class);
        this.receiveEmptyAt = actingToward(-1, "receiveEmpty", EmptyMessage.class);
        this.services = services;
        this.outbox = outbox;
        this.inbox = NO_INBOX;
    }

    /**
     * For each position {@code i} (0..n-1), the first layer from {@code i} in direction
     * {@code step} whose {@code method} does more than forward, or the end beyond the last layer
     * ({@code n} going down, {@code -1} going up).
     */
    private int[] actingToward(int step, String method, Class<?> message) {
        int n = layers.length;
        int[] at = new int[n];
        int next = step > 0 ? n : -1;
        for (int i = step > 0 ? n - 1 : 0; i >= 0 && i < n; i -= step) {
            if (!forwards(layers[i], method, message)) {
                next = i;
            }
            at[i] = next;
        }
        return at;
    }

    /** Whether {@code layer} inherits {@link AbstractLayer}'s {@code method}, which only forwards. */
    private static boolean forwards(Layer layer, String method, Class<?> message) {
        try {
            return layer.getClass().getMethod(method, LayerContext.class, Exchange.class, message)
                    .getDeclaringClass() == AbstractLayer.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("Layer declares " + method, e);
        }
    }

    private static final Inbox NO_INBOX = new Inbox() {
        @Override
        public void deliverRequest(Exchange exchange, Request request) {
            throw new IllegalStateException("no upper stage attached to the stack");
        }

        @Override
        public void deliverResponse(Exchange exchange, Response response) {
            throw new IllegalStateException("no upper stage attached to the stack");
        }
    };

    public static Builder builder() {
        return new Builder();
    }

    /** Attaches the upper stage; until then a message reaching the top is an error. */
    public void setInbox(Inbox inbox) {
        this.inbox = Objects.requireNonNull(inbox, "inbox");
    }

    StackServices services() {
        return services;
    }

    /** Layer names top to bottom, as assembled. */
    public List<String> names() {
        return names;
    }

    /** The options the layers process, together (see {@link Layer#options()}). */
    public Set<OptionNumber> options() {
        return options;
    }

    public void sendRequest(Exchange exchange, Request request) {
        sendRequest(0, exchange, request);
    }

    public void sendResponse(Exchange exchange, Response response) {
        sendResponse(0, exchange, response);
    }

    public void sendEmpty(Exchange exchange, EmptyMessage message) {
        sendEmpty(0, exchange, message);
    }

    public void receiveRequest(Exchange exchange, Request request) {
        receiveRequest(layers.length - 1, exchange, request);
    }

    public void receiveResponse(Exchange exchange, Response response) {
        receiveResponse(layers.length - 1, exchange, response);
    }

    public void receiveEmpty(Exchange exchange, EmptyMessage message) {
        receiveEmpty(layers.length - 1, exchange, message);
    }

    void sendRequest(int from, Exchange exchange, Request request) {
        int i = from < layers.length ? sendRequestAt[from] : from;
        if (i < layers.length) {
            layers[i].sendRequest(contexts[i], exchange, request);
        } else {
            outbox.sendRequest(exchange, request);
        }
    }

    void sendResponse(int from, Exchange exchange, Response response) {
        int i = from < layers.length ? sendResponseAt[from] : from;
        if (i < layers.length) {
            layers[i].sendResponse(contexts[i], exchange, response);
        } else {
            outbox.sendResponse(exchange, response);
        }
    }

    void sendEmpty(int from, Exchange exchange, EmptyMessage message) {
        int i = from < layers.length ? sendEmptyAt[from] : from;
        if (i < layers.length) {
            layers[i].sendEmpty(contexts[i], exchange, message);
        } else {
            outbox.sendEmpty(exchange, message);
        }
    }

    void receiveRequest(int from, Exchange exchange, Request request) {
        int i = from >= 0 ? receiveRequestAt[from] : from;
        if (i >= 0) {
            layers[i].receiveRequest(contexts[i], exchange, request);
        } else {
            inbox.deliverRequest(exchange, request);
        }
    }

    void receiveResponse(int from, Exchange exchange, Response response) {
        int i = from >= 0 ? receiveResponseAt[from] : from;
        if (i >= 0) {
            layers[i].receiveResponse(contexts[i], exchange, response);
        } else {
            inbox.deliverResponse(exchange, response);
        }
    }

    void receiveEmpty(int from, Exchange exchange, EmptyMessage message) {
        int i = from >= 0 ? receiveEmptyAt[from] : from;
        if (i >= 0) {
            layers[i].receiveEmpty(contexts[i], exchange, message);
        } else {
            inbox.deliverEmpty(exchange, message);
        }
    }

    /**
     * Whether a layer of this stack may keep exchanges beyond their state and completion hooks
     * ({@link Layer#keepsExchanges()}); if none does, the endpoint may reuse released exchanges.
     */
    public boolean keepsExchanges() {
        for (Layer layer : layers) {
            if (layer.keepsExchanges()) {
                return true;
            }
        }
        return false;
    }

    /** Starts every layer, bottom first. */
    public void start() {
        for (int i = layers.length - 1; i >= 0; i--) {
            layers[i].start(contexts[i]);
        }
    }

    /** Stops every layer, top first. */
    public void stop() {
        for (int i = 0; i < layers.length; i++) {
            layers[i].stop(contexts[i]);
        }
    }

    /** Destroys every layer, top first. */
    public void destroy() {
        for (int i = 0; i < layers.length; i++) {
            layers[i].destroy(contexts[i]);
        }
    }

    /**
     * Assembles a stack top to bottom. Experts insert their own layer relative to a named one:
     * {@code addAbove(LayerStack.TOKEN, "stamp", new StampLayer())} puts it just above the token
     * layer, i.e. between it and the resources; {@code addBelow} puts it nearer the network.
     */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<Layer> layers = new ArrayList<>();

        private Builder() {
        }

        /** Puts a layer at the top, next to the resources (or the client). */
        public Builder addTop(String name, Layer layer) {
            insert(0, name, layer);
            return this;
        }

        /** Puts a layer at the bottom, next to the network. */
        public Builder addBottom(String name, Layer layer) {
            insert(names.size(), name, layer);
            return this;
        }

        /** Inserts a layer directly above (nearer the resources than) the layer named {@code existing}. */
        public Builder addAbove(String existing, String name, Layer layer) {
            insert(indexOf(existing), name, layer);
            return this;
        }

        /** Inserts a layer directly below (nearer the network than) the layer named {@code existing}. */
        public Builder addBelow(String existing, String name, Layer layer) {
            insert(indexOf(existing) + 1, name, layer);
            return this;
        }

        /** Puts {@code layer} in the place of the layer named {@code existing}, under the same name. */
        public Builder replace(String existing, Layer layer) {
            layers.set(indexOf(existing), Objects.requireNonNull(layer, "layer"));
            return this;
        }

        /** Removes the layer named {@code existing}. */
        public Builder remove(String existing) {
            int i = indexOf(existing);
            names.remove(i);
            layers.remove(i);
            return this;
        }

        /** The layer names, top to bottom. */
        public List<String> names() {
            return Collections.unmodifiableList(names);
        }

        /** The layer registered under {@code name}, or {@code null}. */
        public Layer layer(String name) {
            int i = names.indexOf(name);
            return i < 0 ? null : layers.get(i);
        }

        public LayerStack build(StackServices services, Outbox outbox) {
            return new LayerStack(this, Objects.requireNonNull(services, "services"),
                    Objects.requireNonNull(outbox, "outbox"));
        }

        private int indexOf(String existing) {
            int i = names.indexOf(existing);
            if (i < 0) {
                throw new IllegalArgumentException("no layer named '" + existing + "' in " + names);
            }
            return i;
        }

        private void insert(int at, String name, Layer layer) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(layer, "layer");
            if (names.contains(name)) {
                throw new IllegalArgumentException("a layer named '" + name + "' exists already in " + names);
            }
            names.add(at, name);
            layers.add(at, layer);
        }
    }
}
