package io.stagecoach.core.network.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Token;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.cc.PeerStateMap;
import io.stagecoach.core.network.internal.dedup.DedupResult;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Keys an attacker chooses cannot be driven into long collision chains (docs/security.md,
 * outcome 2): peers whose {@code Inet6Address.hashCode} is one value (it is the sum of the
 * address's four 32-bit words) and tokens whose {@code Arrays.hashCode} is one value get keyed
 * hashes that spread, and keys stay ordered so that a bin that does fill stays a tree. The time
 * per insert is measured by {@code HashFloodBenchmark} (docs/benchmarks/security.md).
 */
class HashFloodingTest {

    static final int PEERS = 100_000;

    /**
     * {@code n} IPv6 addresses (up to 2²¹), all with the same {@code hashCode}: it sums the four
     * words read with signed bytes, so every byte stays below 0x80 and what one word gains the
     * other loses (bytes a, b in word 0 against 0x7f − a, 0x7f − b in word 3; c in word 1 against
     * 0x7f − c in word 2).
     */
    static List<InetSocketAddress> collidingIpv6Peers(int n) throws UnknownHostException {
        List<InetSocketAddress> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int a = i & 0x7f, b = (i >> 7) & 0x7f, c = (i >> 14) & 0x7f;
            byte[] addr = {0x20, 0x01, (byte) a, (byte) b, 0, (byte) c, 0, 0,
                    0, (byte) (0x7f - c), 0, 0, 0x10, 0, (byte) (0x7f - a), (byte) (0x7f - b)};
            out.add(new InetSocketAddress(InetAddress.getByAddress(addr), 5683));
        }
        return out;
    }

    /**
     * 8-byte tokens whose {@code Arrays.hashCode} is one value: a 3-byte block (x, −31x + d, −31d)
     * adds 961x + 31(−31x + d) − 31d = 0, a 2-byte block (x, −31x) adds 0, all bytes in range;
     * 63 × 63 × 9 tokens.
     */
    static List<Token> collidingTokens() {
        List<byte[]> three = new ArrayList<>();
        for (int x = -3; x <= 3; x++) {
            for (int d = -4; d <= 4; d++) {
                three.add(new byte[] {(byte) x, (byte) (-31 * x + d), (byte) (-31 * d)});
            }
        }
        List<byte[]> two = new ArrayList<>();
        for (int x = -4; x <= 4; x++) {
            two.add(new byte[] {(byte) x, (byte) (-31 * x)});
        }
        List<Token> out = new ArrayList<>();
        for (byte[] a : three) {
            for (byte[] b : three) {
                for (byte[] c : two) {
                    byte[] t = new byte[8];
                    System.arraycopy(a, 0, t, 0, 3);
                    System.arraycopy(b, 0, t, 3, 3);
                    System.arraycopy(c, 0, t, 6, 2);
                    out.add(Token.of(t));
                }
            }
        }
        return out;
    }

    @Test
    void collidingIpv6PeersGetKeyedHashesThatSpread() throws UnknownHostException {
        List<InetSocketAddress> peers = collidingIpv6Peers(PEERS);
        Set<Integer> jdk = new HashSet<>();
        Set<Integer> keyed = new HashSet<>();
        for (InetSocketAddress p : peers) {
            jdk.add(p.getAddress().hashCode());
            keyed.add(new PeerKey(p).hashCode());
        }
        assertEquals(1, jdk.size(), "the JDK's hash: one value for all (the attack)");
        assertTrue(keyed.size() > PEERS * 99 / 100, "keyed: " + keyed.size() + " distinct of " + PEERS);
    }

    @Test
    void collidingTokensGetKeyedHashesThatSpread() {
        List<Token> tokens = collidingTokens();
        Set<Integer> jdk = new HashSet<>();
        Set<Integer> keyed = new HashSet<>();
        for (Token t : tokens) {
            jdk.add(Arrays.hashCode(t.bytes()));
            keyed.add(t.hashCode());
        }
        assertEquals(63 * 63 * 9, tokens.size());
        assertEquals(1, jdk.size(), "Arrays.hashCode: one value for all");
        assertTrue(keyed.size() > tokens.size() * 99 / 100, "keyed: " + keyed.size() + " distinct");
    }

    @Test
    void keysAreOrderedConsistentlyWithEquals() throws UnknownHostException {
        List<InetSocketAddress> peers = collidingIpv6Peers(3);
        ExchangeStore.MidKey a = new ExchangeStore.MidKey(peers.get(0), 1);
        ExchangeStore.MidKey b = new ExchangeStore.MidKey(peers.get(1), 1);
        assertTrue(a.compareTo(b) != 0 && Integer.signum(a.compareTo(b)) == -Integer.signum(b.compareTo(a)));
        assertEquals(0, a.compareTo(new ExchangeStore.MidKey(peers.get(0), 1)));
        ExchangeStore.TokenKey t = new ExchangeStore.TokenKey(peers.get(0), Token.fromHex("01"));
        assertEquals(0, t.compareTo(new ExchangeStore.TokenKey(peers.get(0), Token.fromHex("01"))));
        assertTrue(t.compareTo(new ExchangeStore.TokenKey(peers.get(0), Token.fromHex("02"))) < 0);
        assertTrue(Source.of(peers.get(0)).compareTo(Source.of(peers.get(1))) < 0);
    }

    /** The stores an attacker fills: every colliding key goes in and is found again. */
    @Test
    void collidingPeersAndTokensGoIntoTheStoresAndAreFoundAgain() throws UnknownHostException {
        List<InetSocketAddress> peers = collidingIpv6Peers(PEERS);
        DeduplicationStore dedup = DeduplicationStore.builder().mode(DeduplicationMode.STRICT).maxEntries(2 * PEERS)
                .maxEntriesPerSource(2 * PEERS).build();
        long now = System.nanoTime();
        for (InetSocketAddress p : peers) {
            assertEquals(DedupResult.Status.NEW, dedup.lookupOrInsert(p, 1, true, false, now).status());
        }
        for (InetSocketAddress p : peers) {
            assertEquals(DedupResult.Status.IN_FLIGHT, dedup.lookupOrInsert(p, 1, true, false, now).status());
        }
        ConcurrentHashMap<ExchangeStore.TokenKey, Integer> byToken = new ConcurrentHashMap<>();
        List<Token> tokens = collidingTokens();
        for (int i = 0; i < tokens.size(); i++) {
            byToken.put(new ExchangeStore.TokenKey(peers.get(0), tokens.get(i)), i);
        }
        for (int i = 0; i < tokens.size(); i++) {
            assertEquals(i, byToken.get(new ExchangeStore.TokenKey(peers.get(0), tokens.get(i))));
        }
    }

    /**
     * The reliability layer's per-peer RTO state, keyed as the layer keys it: a server makes an
     * entry for every peer it sends a CON to (a separate response, the CON that answers an observe
     * registration from an unverified address), so colliding peers can fill it. With bare
     * {@code InetSocketAddress} keys these 100,000 inserts walk one bin of up to 100,000 keys each.
     */
    @Test
    void collidingPeersGoIntoTheCongestionStateAndAreFoundAgain() throws UnknownHostException {
        List<InetSocketAddress> peers = collidingIpv6Peers(PEERS);
        PeerStateMap<PeerKey, Integer> congestion = new PeerStateMap<>(PEERS);
        for (int i = 0; i < PEERS; i++) {
            int index = i;
            assertEquals(i, congestion.computeIfAbsent(new PeerKey(peers.get(i)), k -> index));
        }
        assertEquals(PEERS, congestion.size());
        assertEquals(0, congestion.evictions());
        for (int i = 0; i < PEERS; i++) {
            assertEquals(i, congestion.get(new PeerKey(peers.get(i))));
        }
    }
}
