package io.stagecoach.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One phase of the flood scenario: its attack, if any, what the innocent requests first sent in it
 * came to, and the server's counters over it.
 *
 * @param name       {@code before}, {@code unsolicited}, {@code between}, {@code requests}, {@code after}
 * @param attackName what the attacker does in the phase, {@code -} for none
 * @param attack     what the attacker sent, or {@code null} in a phase without attack
 * @param innocents  the outcomes of the innocent requests first sent in the phase
 * @param serverEnd  the server's {@code flood-stats} at the end of the phase (gauges, heap peak
 *                   since the phase began)
 * @param serverDelta the server's counters' increase over the phase
 */
public record FloodPhase(String name, String attackName, DatagramFlood.Sent attack, PhaseTally.Snapshot innocents,
        Map<String, Long> serverEnd, Map<String, Long> serverDelta) {

    /** The counters whose increase a phase reports, in this order. */
    static final List<String> COUNTERS = List.of("received_con", "received_non", "received_ack", "received_rst",
            "sent_ack", "sent_non", "sent_con", "sent_rst", "unmatched", "duplicates", "rejected_overload",
            "limit_exceeded", "amplification_limited", "dropped_queue_full", "send_errors", "malformed", "gc.count", "gc.millis");
    /** The gauges a phase reports at its end. */
    static final List<String> GAUGES = List.of("exchanges", "dedup_entries", "observe_relations", "queue_depth",
            "blockwise_transfers", "heap.peak", "heap.used");

    public FloodPhase {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(innocents, "innocents");
        serverEnd = Map.copyOf(serverEnd);
        serverDelta = Map.copyOf(serverDelta);
    }

    /** {@code after - before} of every counter in {@link #COUNTERS}. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (String c : COUNTERS) {
            d.put(c, after.getOrDefault(c, 0L) - before.getOrDefault(c, 0L));
        }
        return d;
    }

    long counter(String name) {
        return serverDelta.getOrDefault(name, 0L);
    }

    long gauge(String name) {
        return serverEnd.getOrDefault(name, 0L);
    }
}
