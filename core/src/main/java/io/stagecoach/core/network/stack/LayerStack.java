package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The linked layers of one endpoint, top (next to the resources) to bottom (next to the network).
 *
 * <p>Built once by {@link LayerStack.Builder}; the stack is then immutable. Outgoing messages enter
 * at the top ({@link #sendRequest(Exchange, Request)} ...) and leave through the {@link Outbox};
 * incoming ones enter at the bottom ({@link #receiveRequest(Exchange, Request)} ...) and leave
 * through the {@link Inbox}. Calls run on the calling thread: the stack adds no hand-off.
 */
public final class LayerStack {

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
    }

    private final Layer[] layers;
    private final LayerContext[] contexts;
    private final List<String> names;
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
        this.services = services;
        this.outbox = outbox;
        this.inbox = NO_INBOX;
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

    /** The layer registered under {@code name}, or {@code null}. */
    public Layer layer(String name) {
        int i = names.indexOf(name);
        return i < 0 ? null : layers[i];
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

    void sendRequest(int i, Exchange exchange, Request request) {
        if (i < layers.length) {
            layers[i].sendRequest(contexts[i], exchange, request);
        } else {
            outbox.sendRequest(exchange, request);
        }
    }

    void sendResponse(int i, Exchange exchange, Response response) {
        if (i < layers.length) {
            layers[i].sendResponse(contexts[i], exchange, response);
        } else {
            outbox.sendResponse(exchange, response);
        }
    }

    void sendEmpty(int i, Exchange exchange, EmptyMessage message) {
        if (i < layers.length) {
            layers[i].sendEmpty(contexts[i], exchange, message);
        } else {
            outbox.sendEmpty(exchange, message);
        }
    }

    void receiveRequest(int i, Exchange exchange, Request request) {
        if (i >= 0) {
            layers[i].receiveRequest(contexts[i], exchange, request);
        } else {
            inbox.deliverRequest(exchange, request);
        }
    }

    void receiveResponse(int i, Exchange exchange, Response response) {
        if (i >= 0) {
            layers[i].receiveResponse(contexts[i], exchange, response);
        } else {
            inbox.deliverResponse(exchange, response);
        }
    }

    void receiveEmpty(int i, Exchange exchange, EmptyMessage message) {
        if (i >= 0) {
            layers[i].receiveEmpty(contexts[i], exchange, message);
        } else {
            inbox.deliverEmpty(exchange, message);
        }
    }

    /** Stops every layer, bottom first. */
    public void stop() {
        for (int i = layers.length - 1; i >= 0; i--) {
            layers[i].stop();
        }
    }

    /**
     * Assembles a stack top to bottom. Experts insert their own layer relative to a named one:
     * {@code addBefore("token", "stamp", new StampLayer())} puts it just above the token layer.
     */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<Layer> layers = new ArrayList<>();

        private Builder() {
        }

        /** Appends a layer below those added so far. */
        public Builder add(String name, Layer layer) {
            insert(names.size(), name, layer);
            return this;
        }

        /** Inserts a layer directly above the layer named {@code existing}. */
        public Builder addBefore(String existing, String name, Layer layer) {
            insert(indexOf(existing), name, layer);
            return this;
        }

        /** Inserts a layer directly below the layer named {@code existing}. */
        public Builder addAfter(String existing, String name, Layer layer) {
            insert(indexOf(existing) + 1, name, layer);
            return this;
        }

        /** Removes the layer named {@code existing}, e.g. to replace it. */
        public Builder remove(String existing) {
            int i = indexOf(existing);
            names.remove(i);
            layers.remove(i);
            return this;
        }

        public List<String> names() {
            return Collections.unmodifiableList(names);
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
