package io.stagecoach.elements.sim;

import io.stagecoach.elements.time.Scheduler;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;

/**
 * An in-memory datagram network for tests and simulations, driven by a {@link Scheduler}
 * (a {@code VirtualClock} for deterministic runs).
 *
 * <p>A packet sent from A to B crosses the links of its path in order: the {@link Route}'s
 * path if one is set and answers, else the link set for the pair (A, B), else the default
 * link, else none (zero delay). Entering a link happens when the packet reaches it; leaving
 * is a scheduler task. Delivery to the destination connector's receiver therefore always runs
 * on the scheduler's thread (with a {@code VirtualClock}: inside {@code advance}), never inside
 * {@code send}. Packets to an address nobody is attached to are counted as
 * {@link #undeliverable()}.
 *
 * <p>Deterministic: one seeded generator, used under one lock, in send order; with a
 * {@code VirtualClock} the same seed and the same sends give the same outcome.
 */
public final class SimulatedNetwork {

    private static final int FIRST_EPHEMERAL_PORT = 49152;

    private final Scheduler scheduler;
    private final Object lock = new Object();
    private final RandomGenerator random;
    private final Map<InetSocketAddress, SimulatedConnector> attached = new ConcurrentHashMap<>();
    private final Map<List<InetSocketAddress>, Link> pairLinks = new HashMap<>();
    private final LongAdder undeliverable = new LongAdder();
    private Link defaultLink;
    private Route route;
    private int nextPort = FIRST_EPHEMERAL_PORT;

    public SimulatedNetwork(Scheduler scheduler, long seed) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.random = new SplittableRandom(seed);
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** A new, not yet started connector for {@code address} (port 0: a free port at start). */
    public SimulatedConnector connector(InetSocketAddress address) {
        return new SimulatedConnector(this, address, SimulatedConnector.DEFAULT_MAX_DATAGRAM_SIZE);
    }

    /** Impairments for every pair without a route or a pair link; returns the shared link for its counters. */
    public ImpairedLink setDefaultConditions(LinkConditions conditions) {
        ImpairedLink link = new ImpairedLink(conditions);
        synchronized (lock) {
            defaultLink = link;
        }
        return link;
    }

    /** Impairments from {@code src} to {@code dst} only (directional); returns the link for its counters. */
    public ImpairedLink setConditions(InetSocketAddress src, InetSocketAddress dst, LinkConditions conditions) {
        ImpairedLink link = new ImpairedLink(conditions);
        setLink(src, dst, link);
        return link;
    }

    /** Any link, e.g. a {@link BottleneckLink}, from {@code src} to {@code dst} (directional). */
    public void setLink(InetSocketAddress src, InetSocketAddress dst, Link link) {
        Objects.requireNonNull(link, "link");
        synchronized (lock) {
            pairLinks.put(List.of(src, dst), link);
        }
    }

    /** Paths for multi-hop topologies; consulted first. {@code null} removes it. */
    public void setRoute(Route route) {
        synchronized (lock) {
            this.route = route;
        }
    }

    /** Packets that reached an address with no started connector. */
    public long undeliverable() {
        return undeliverable.sum();
    }

    InetSocketAddress attach(InetSocketAddress requested, SimulatedConnector connector) throws BindException {
        synchronized (lock) {
            InetSocketAddress address = requested;
            if (requested.getPort() == 0) {
                do {
                    address = new InetSocketAddress(requested.getAddress(), nextPort++);
                } while (attached.containsKey(address));
            }
            if (attached.putIfAbsent(address, connector) != null) {
                throw new BindException("address already attached: " + address);
            }
            return address;
        }
    }

    void detach(InetSocketAddress address, SimulatedConnector connector) {
        attached.remove(address, connector);
    }

    /** Takes ownership of {@code payload}. */
    void send(InetSocketAddress src, InetSocketAddress dst, byte[] payload) {
        Packet packet;
        synchronized (lock) {
            List<Link> path = route == null ? null : route.path(src, dst);
            if (path == null) {
                Link link = pairLinks.get(List.of(src, dst));
                if (link == null) {
                    link = defaultLink;
                }
                path = link == null ? List.of() : List.of(link);
            }
            packet = new Packet(src, dst, payload, path);
            if (!path.isEmpty()) {
                enter(packet, 0);
                return;
            }
        }
        scheduler.schedule(() -> deliver(packet), Duration.ZERO);
    }

    // under lock
    private void enter(Packet packet, int hop) {
        Link link = packet.path.get(hop);
        long[] exits = link.offer(packet.payload.length, scheduler.nanoTime(), random);
        for (long delay : exits) {
            scheduler.schedule(() -> leave(packet, hop), Duration.ofNanos(delay));
        }
    }

    private void leave(Packet packet, int hop) {
        synchronized (lock) {
            packet.path.get(hop).delivered(packet.payload.length);
            if (hop + 1 < packet.path.size()) {
                enter(packet, hop + 1);
                return;
            }
        }
        deliver(packet);
    }

    private void deliver(Packet packet) {
        SimulatedConnector target = attached.get(packet.dst);
        if (target == null || !target.deliver(packet.src, packet.payload.clone(), scheduler.nanoTime())) {
            undeliverable.increment();
        }
    }

    private record Packet(InetSocketAddress src, InetSocketAddress dst, byte[] payload, List<Link> path) {
    }
}
