package io.stagecoach.elements.sim;

import java.util.random.RandomGenerator;

/**
 * One hop of a simulated path. A packet enters the link, the link decides how many copies leave
 * (none: dropped; two: duplicated) and after how long.
 *
 * <p>{@link SimulatedNetwork} calls both methods under its lock, so implementations need no
 * synchronisation of their own and see packets in a deterministic order for a given seed.
 */
public interface Link {

    /**
     * A packet of {@code payloadBytes} enters at {@code nowNanos}.
     *
     * @param random the network's seeded generator; draw from it only, never from another source
     * @return for each copy that will leave, its delay in nanoseconds from {@code nowNanos};
     *         empty if the packet is dropped
     */
    long[] offer(int payloadBytes, long nowNanos, RandomGenerator random);

    /** A copy announced by {@link #offer} has left the far end of the link. */
    void delivered(int payloadBytes);

    LinkCounters counters();
}
