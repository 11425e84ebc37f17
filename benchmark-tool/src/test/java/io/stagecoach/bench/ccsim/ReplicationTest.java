package io.stagecoach.bench.ccsim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Invariants of one simulated replication on the real stacks (small, fast cases). */
class ReplicationTest {

    private static final int OVERHEAD = Topology.PAPER.overheadBytes();

    /** Encoded sizes of what the clients and the server send, from the codec, not from the simulation. */
    private static int requestBytes() {
        Request.Builder b = Request.get().type(Type.CON).mid(1);
        b.options().uriPath("test");
        return new UdpMessageSerializer().serialize(b.build()).length;
    }

    private static int responseBytes() {
        Request.Builder b = Request.get().type(Type.CON).mid(1);
        b.options().uriPath("test");
        Response r = Response.forRequest(b.build(), Code.CONTENT).type(Type.ACK).mid(1)
                .payload(new byte[Replication.RESPONSE_PAYLOAD_BYTES]).build();
        return new UdpMessageSerializer().serialize(r).length;
    }

    @Test
    void oneClientWithoutCongestionSendsExactlyOneCopyPerExchange() {
        Scenario s = Scenario.paper(Strategy.DEFAULT, Workload.CONTINUOUS, 1, 2500).withExchanges(20);
        ReplicationResult r = Replication.run(s, 5);
        ReplicationResult.Accounting a = r.accounting();
        assertEquals(20L * (requestBytes() + OVERHEAD), a.uplinkBytes(),
                "uplink bytes = 20 requests x (CoAP " + requestBytes() + " + " + OVERHEAD + "); got " + a);
        assertEquals(20L * (responseBytes() + OVERHEAD), a.downlinkBytes(),
                "downlink bytes = 20 responses x (CoAP " + responseBytes() + " + " + OVERHEAD + "); got " + a);
        assertEquals(20, r.histogram()[0], "all 20 exchanges without retransmission: " + Arrays.toString(r.histogram()));
        double bound = 20 * Topology.PAPER.idleRoundTripNanos(requestBytes(), responseBytes()) / 1e9;
        // at most 20 ms extra server delay per round trip (10..20 ms each way)
        assertTrue(r.fctSeconds()[0] >= bound && r.fctSeconds()[0] <= bound + 20 * 0.020 + 1e-6,
                "FCT " + r.fctSeconds()[0] + " s outside [" + bound + ", " + (bound + 0.4) + "]");
    }

    @Test
    void congestedSmallBufferCompletesEveryExchangeAndTheBytesAddUp() {
        for (Strategy strategy : new Strategy[] {Strategy.DEFAULT, Strategy.COCOA}) {
            for (Workload w : Workload.values()) {
                Scenario s = Scenario.paper(strategy, w, 20, 1000);
                ReplicationResult r = Replication.run(s, 11);
                ReplicationResult.Accounting a = r.accounting();
                String what = strategy + "/" + w + ": " + a;
                assertTrue(a.downlinkDrops() > 0, "the 1000 B buffer should drop responses: " + what);
                assertEquals(0, r.failedExchanges(), what);
                assertEquals(20L * Scenario.PAPER_EXCHANGES, Arrays.stream(r.histogram()).sum(),
                        "every client completed 50 exchanges: " + Arrays.toString(r.histogram()));
                assertEquals(a.clientWireBytes(), a.uplinkBytes(), "uplink bytes = sum of client datagrams + overhead");
                assertEquals(a.serverWireBytes(), a.downlinkBytes(), "downlink bytes = sum of server datagrams + overhead");
                assertEquals(a.acceptedRequestCopies(), a.serverRequestCopies(),
                        "request copies accepted by the uplink queue = copies that reached the server: " + what);
                double bound = s.exchanges() * s.topology().idleRoundTripNanos(requestBytes(), responseBytes()) / 1e9;
                for (double fct : r.fctSeconds()) {
                    assertTrue(fct >= bound, "FCT " + fct + " s below the idle-network bound " + bound + " s");
                }
            }
        }
    }

    @Test
    void sameSeedSameResult() {
        Scenario s = Scenario.paper(Strategy.COCOA, Workload.RANDOM, 10, 1000).withExchanges(10);
        ReplicationResult a = Replication.run(s, 3);
        ReplicationResult b = Replication.run(s, 3);
        assertArrayEquals(a.fctSeconds(), b.fctSeconds());
        assertArrayEquals(a.unnecessary(), b.unnecessary());
        assertArrayEquals(a.histogram(), b.histogram());
    }

    /**
     * Bufferbloat with few clients: a 9 kbit/s downlink makes 30 responses take 2.5 s to
     * serialise, so the queue delay exceeds the initial RTO of 2–3 s and nothing is ever dropped.
     * Full backoff must need fewer unnecessary retransmissions than its base strategy, for every seed.
     */
    @Test
    void fullBackoffNeedsFewerUnnecessaryRetransmissionsUnderBufferbloat() {
        Topology slow = Topology.PAPER.withDownBitRate(9_000);
        for (long seed = 1; seed <= 3; seed++) {
            for (Strategy fb : new Strategy[] {Strategy.DEFAULT_FB1, Strategy.DEFAULT_FB2, Strategy.COCOA_FB1,
                    Strategy.COCOA_FB2}) {
                Scenario s = Scenario.paper(fb, Workload.RANDOM, 30, 1_410_000).withExchanges(20).withTopology(slow);
                ReplicationResult withFb = Replication.run(s, seed);
                ReplicationResult base = Replication.run(s.withStrategy(fb.base()), seed);
                assertEquals(0, base.accounting().uplinkDrops() + base.accounting().downlinkDrops(), "no loss");
                int sumFb = Arrays.stream(withFb.unnecessary()).sum();
                int sumBase = Arrays.stream(base.unnecessary()).sum();
                assertTrue(sumBase > 0, "the base strategy retransmits spuriously (seed " + seed + ")");
                assertTrue(sumFb < sumBase, fb.cliName() + " seed " + seed + ": " + sumFb
                        + " unnecessary retransmissions, " + fb.base().cliName() + ": " + sumBase);
            }
        }
    }
}
