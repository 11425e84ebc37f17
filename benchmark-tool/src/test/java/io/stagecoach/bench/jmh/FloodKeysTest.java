package io.stagecoach.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.network.internal.PeerKey;
import io.stagecoach.core.network.internal.Source;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The premise of {@code HashFloodBenchmark}: its colliding keys are distinct and share the JDK's hash. */
class FloodKeysTest {

    private static final int N = 101_024; // the benchmark's largest n plus its ring of extra keys

    @Test
    void collidingPeersAreDistinctPeersOfOneSlash64WithOneHash() {
        List<InetSocketAddress> peers = FloodKeys.collidingPeers(N);
        // A HashSet of the addresses themselves would take N²/2 comparisons: the attack. Keyed, it does not.
        assertEquals(N, peers.stream().map(PeerKey::new).distinct().count(), "distinct");
        assertEquals(1, peers.stream().mapToInt(InetSocketAddress::hashCode).distinct().count(), "one hash");
        assertEquals(1, peers.stream().map(Source::of).distinct().count(), "one source: the attacker's /64");
        List<InetSocketAddress> random = FloodKeys.randomPeers(N, 66);
        assertEquals(N, random.stream().map(PeerKey::new).distinct().count());
        assertTrue(random.stream().mapToInt(InetSocketAddress::hashCode).distinct().count() > N * 99L / 100);
        assertEquals(Source.of(peers.get(0)), Source.of(random.get(0)), "the same /64 for both");
    }

    @Test
    void collidingTokensAreDistinctEightByteTokensWithOneArraysHashCode() {
        List<byte[]> tokens = FloodKeys.collidingTokens(N);
        Set<String> distinct = new HashSet<>();
        for (byte[] t : tokens) {
            assertEquals(8, t.length);
            distinct.add(Arrays.toString(t));
        }
        assertEquals(N, distinct.size(), "distinct");
        assertEquals(1, tokens.stream().mapToInt(Arrays::hashCode).distinct().count(), "one hash");
        assertTrue(FloodKeys.randomTokens(N, 66).stream().mapToInt(Arrays::hashCode).distinct().count() > N * 99L / 100);
        assertThrows(IllegalArgumentException.class, () -> FloodKeys.collidingTokens(10_000_000), "there are fewer");
    }
}
