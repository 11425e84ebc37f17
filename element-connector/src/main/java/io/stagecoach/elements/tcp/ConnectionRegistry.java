package io.stagecoach.elements.tcp;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.StreamConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections of a {@link NettyTcpConnector} by id and by peer address, and the counts
 * that bound a server: connections in total and per source IP address. Thread-safe.
 */
final class ConnectionRegistry {

    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<Long, TcpConnection> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, TcpConnection> byPeer = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();

    long nextId() {
        return nextId.getAndIncrement();
    }

    /** Registers {@code c} under its id and peer. */
    void add(TcpConnection c) {
        byId.put(c.id, c);
        byPeer.put(c.peer, c);
    }

    /**
     * A client's connection to {@code peer}: the one registered, or {@code created} (then
     * registered) when there is none; {@code created} is returned only if it was registered.
     */
    TcpConnection putIfAbsent(TcpConnection created) {
        TcpConnection there = byPeer.putIfAbsent(created.peer, created);
        if (there != null) {
            return there;
        }
        byId.put(created.id, created);
        return created;
    }

    /** By the context's {@link StreamConnector#CONNECTION_ID} if it has one, else by its peer. */
    TcpConnection find(EndpointContext context) {
        Long id = context.attribute(StreamConnector.CONNECTION_ID);
        return id != null ? byId.get(id) : byPeer.get(context.peer());
    }

    void remove(TcpConnection c) {
        byId.remove(c.id, c);
        byPeer.remove(c.peer, c);
    }

    Collection<TcpConnection> all() {
        return byId.values();
    }

    int size() {
        return byId.size();
    }

    /**
     * Counts an accepted connection from {@code peer}; the returned slot must be released when
     * it closes, whether it was admitted or not.
     *
     * @return whether it is within both limits
     */
    Slot count(InetSocketAddress peer, int maxTotal, int maxPerAddress) {
        AtomicInteger fromAddress = perAddress.computeIfAbsent(peer.getAddress(), a -> new AtomicInteger());
        int all = total.incrementAndGet();
        int fromPeer = fromAddress.incrementAndGet();
        return new Slot(peer.getAddress(), fromAddress, all <= maxTotal && fromPeer <= maxPerAddress);
    }

    /** One accepted connection's share of the counts. */
    final class Slot {
        private final InetAddress address;
        private final AtomicInteger fromAddress;
        final boolean withinLimits;

        private Slot(InetAddress address, AtomicInteger fromAddress, boolean withinLimits) {
            this.address = address;
            this.fromAddress = fromAddress;
            this.withinLimits = withinLimits;
        }

        void release() {
            total.decrementAndGet();
            if (fromAddress.decrementAndGet() <= 0) {
                perAddress.remove(address, fromAddress);
            }
        }
    }
}
