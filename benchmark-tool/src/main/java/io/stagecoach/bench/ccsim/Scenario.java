package io.stagecoach.bench.ccsim;

import java.util.Objects;

/**
 * One cell of the experiment grid: who runs which strategy over which network. Immutable.
 *
 * @param exchanges successful request/response pairs each client needs (paper: 50)
 * @param bufferBytes tail-drop buffer in front of each bottleneck direction
 * @param maxRetransmit MAX_RETRANSMIT (paper §3.3: 20)
 */
public record Scenario(Strategy strategy, Workload workload, int clients, long bufferBytes, int exchanges,
        int maxRetransmit, Topology topology) {

    public static final int PAPER_EXCHANGES = 50;
    public static final int PAPER_MAX_RETRANSMIT = 20;

    public Scenario {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(topology, "topology");
        if (clients < 1 || clients > 60_000) {
            throw new IllegalArgumentException("clients must be in [1, 60000]: " + clients);
        }
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("buffer must be positive: " + bufferBytes);
        }
        if (exchanges < 1) {
            throw new IllegalArgumentException("exchanges must be positive: " + exchanges);
        }
        if (maxRetransmit < 0 || maxRetransmit > 20) {
            throw new IllegalArgumentException("maxRetransmit must be in [0, 20]: " + maxRetransmit);
        }
    }

    /** The paper's set-up (§3) for one strategy, workload, client count and buffer. */
    public static Scenario paper(Strategy strategy, Workload workload, int clients, long bufferBytes) {
        return new Scenario(strategy, workload, clients, bufferBytes, PAPER_EXCHANGES, PAPER_MAX_RETRANSMIT,
                Topology.PAPER);
    }

    public Scenario withStrategy(Strategy s) {
        return new Scenario(s, workload, clients, bufferBytes, exchanges, maxRetransmit, topology);
    }

    public Scenario withExchanges(int n) {
        return new Scenario(strategy, workload, clients, bufferBytes, n, maxRetransmit, topology);
    }

    public Scenario withTopology(Topology t) {
        return new Scenario(strategy, workload, clients, bufferBytes, exchanges, maxRetransmit, t);
    }
}
