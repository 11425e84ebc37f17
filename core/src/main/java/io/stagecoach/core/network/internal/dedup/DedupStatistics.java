package io.stagecoach.core.network.internal.dedup;

/**
 * A snapshot of a {@link DeduplicationStore}'s counters; counters only grow, except
 * {@code entries}.
 *
 * @param entries    messages remembered now (in flight or completed, not yet swept)
 * @param inserted   messages remembered since creation ({@code NEW} results, OFF mode excluded)
 * @param duplicates duplicates detected ({@code IN_FLIGHT} and {@code DONE} results)
 * @param overloads  messages refused because a cap was reached ({@code OVERLOADED} results)
 * @param swept      entries removed by {@link DeduplicationStore#sweep} after their lifetime
 */
public record DedupStatistics(long entries, long inserted, long duplicates, long overloads, long swept) {
}
