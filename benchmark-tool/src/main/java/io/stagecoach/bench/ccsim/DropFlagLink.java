package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.sim.Link;
import io.stagecoach.elements.sim.LinkCounters;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Wraps the first link of the uplink and remembers whether the packet offered last was dropped.
 * {@link io.stagecoach.elements.sim.SimulatedNetwork} offers a packet to its first link inside
 * {@code send}, so a sender that looks right after sending learns the fate of its own packet.
 */
final class DropFlagLink implements Link {

    private final Link delegate;
    private boolean lastDropped;

    DropFlagLink(Link delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public long[] offer(int payloadBytes, long nowNanos, RandomGenerator random) {
        long[] exits = delegate.offer(payloadBytes, nowNanos, random);
        lastDropped = exits.length == 0;
        return exits;
    }

    @Override
    public void delivered(int payloadBytes) {
        delegate.delivered(payloadBytes);
    }

    @Override
    public LinkCounters counters() {
        return delegate.counters();
    }

    boolean lastDropped() {
        return lastDropped;
    }
}
