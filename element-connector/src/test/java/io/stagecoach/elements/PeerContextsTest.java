package io.stagecoach.elements;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PeerContextsTest {

    private static InetSocketAddress v4(int host, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, (byte) (host >>> 8), (byte) host}), port);
    }

    @Test
    void aPeerThatComesAgainGetsTheSameContextAndAnotherPortIsAnotherPeer() throws Exception {
        PeerContexts contexts = new PeerContexts(64);
        EndpointContext first = contexts.of(v4(1, 5683));
        // a new but equal address object, as a connector decodes for each datagram
        assertSame(first, contexts.of(v4(1, 5683)));
        EndpointContext otherPort = contexts.of(v4(1, 5684));
        assertNotSame(first, otherPort);
        assertEquals(v4(1, 5684), otherPort.peer());
    }

    @Test
    void manyMorePeersThanSlotsOnlyReplaceEntriesAndEachGetsItsOwnAddress() throws Exception {
        PeerContexts contexts = new PeerContexts(4);
        for (int i = 0; i < 10_000; i++) {
            InetSocketAddress peer = v4(i, 1000 + (i % 7));
            assertEquals(peer, contexts.of(peer).peer(), "peer " + i);
        }
        InetSocketAddress last = v4(9_999, 1000 + (9_999 % 7));
        assertSame(contexts.of(last), contexts.of(last), "the last one is held");
    }

    @Test
    void theDefaultTableKeepsFiveThousandConsecutivePeersAndMostRandomOnes() throws Exception {
        // the load generator's clients: consecutive loopback addresses, one port
        PeerContexts contexts = new PeerContexts(PeerContexts.DEFAULT_SLOTS);
        InetSocketAddress[] peers = new InetSocketAddress[5_000];
        EndpointContext[] first = new EndpointContext[peers.length];
        for (int i = 0; i < peers.length; i++) {
            int host = 1 + i;
            peers[i] = new InetSocketAddress(InetAddress.getByAddress(
                    new byte[] {127, 1, (byte) (host >>> 8), (byte) host}), 40_000);
            first[i] = contexts.of(peers[i]);
        }
        for (int i = 0; i < peers.length; i++) {
            assertSame(first[i], contexts.of(peers[i]), "peer " + i + " lost its entry");
        }
        // random addresses collide by chance: 1 - e^(-5000/16384) = 26 % of them share a slot in
        // expectation; 4,096 slots would lose 70 %. The sequence is fixed, so the count is too.
        SplittableRandom random = new SplittableRandom(19);
        PeerContexts other = new PeerContexts(PeerContexts.DEFAULT_SLOTS);
        for (int i = 0; i < peers.length; i++) {
            byte[] a = new byte[4];
            random.nextBytes(a);
            peers[i] = new InetSocketAddress(InetAddress.getByAddress(a), 1024 + random.nextInt(60_000));
            first[i] = other.of(peers[i]);
        }
        int kept = 0;
        for (int i = 0; i < peers.length; i++) {
            if (other.of(peers[i]) == first[i]) {
                kept++;
            }
        }
        assertTrue(kept > 3_500, "kept " + kept + " of 5000");
    }

    @Test
    void aScopedIpv6AddressIsNeverTakenForTheSameAddressOnAnotherInterface() throws Exception {
        PeerContexts contexts = new PeerContexts(1); // one slot: everything collides
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        InetSocketAddress onOne = new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 1), 5683);
        InetSocketAddress onTwo = new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 2), 5683);
        assertEquals(1, ((Inet6Address) contexts.of(onOne).peer().getAddress()).getScopeId());
        assertEquals(2, ((Inet6Address) contexts.of(onTwo).peer().getAddress()).getScopeId());
        assertEquals(1, ((Inet6Address) contexts.of(onOne).peer().getAddress()).getScopeId());
    }
}
