package io.stagecoach.elements;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who is on the other end of a datagram: the peer's socket address plus optional, typed
 * attributes that later transports (DTLS session, TCP connection identity) attach.
 *
 * <p>Immutable. Two contexts are equal when peer and attributes are equal. The UDP connectors
 * create contexts with the peer address only; attributes are empty and cost nothing.
 */
public final class EndpointContext {

    /** A typed attribute name; compare by identity, so declare keys as constants. */
    public static final class Key<T> {
        private final String name;
        private final Class<T> type;

        public Key(String name, Class<T> type) {
            this.name = Objects.requireNonNull(name, "name");
            this.type = Objects.requireNonNull(type, "type");
        }

        public String name() {
            return name;
        }

        public Class<T> type() {
            return type;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private final InetSocketAddress peer;
    private final Map<Key<?>, Object> attributes;

    private EndpointContext(InetSocketAddress peer, Map<Key<?>, Object> attributes) {
        this.peer = Objects.requireNonNull(peer, "peer");
        this.attributes = attributes;
    }

    /** A context naming only the peer. */
    public static EndpointContext of(InetSocketAddress peer) {
        return new EndpointContext(peer, Collections.emptyMap());
    }

    /** The peer's socket address (resolved). */
    public InetSocketAddress peer() {
        return peer;
    }

    /** The attribute's value, or {@code null} when absent. */
    public <T> T attribute(Key<T> key) {
        return key.type().cast(attributes.get(key));
    }

    /** A copy of this context with one more (or one replaced) attribute. */
    public <T> EndpointContext withAttribute(Key<T> key, T value) {
        Map<Key<?>, Object> copy = new HashMap<>(attributes);
        copy.put(key, Objects.requireNonNull(value, "value"));
        return new EndpointContext(peer, Collections.unmodifiableMap(copy));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof EndpointContext)) {
            return false;
        }
        EndpointContext other = (EndpointContext) o;
        return peer.equals(other.peer) && attributes.equals(other.attributes);
    }

    @Override
    public int hashCode() {
        return peer.hashCode() * 31 + attributes.hashCode();
    }

    @Override
    public String toString() {
        return attributes.isEmpty() ? peer.toString() : peer + " " + attributes;
    }
}
