package io.stagecoach.core.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One host with many ports, and many hosts, attack a server on the in-memory network while an
 * innocent client keeps asking: per-source budgets, eviction from the heaviest source, nothing
 * remembered for unsolicited responses (docs/security.md, outcome 1).
 */
class HostileSourcesTest {

    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    static final InetSocketAddress INNOCENT = new InetSocketAddress("10.0.0.7", 40000);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final List<LockstepPeer> peers = new ArrayList<>();
    private CoapServer server;
    private CoapEndpoint endpoint;

    private void start(UnaryOperator<Configuration.Builder> config) {
        server = CoapServer.builder().connector(net.connector(SERVER)).scheduler(clock).protocolExecutor(Runnable::run)
                .config(config.apply(CoapConfig.builder()).build())
                .build()
                .add(CoapResource.named("hello").onGet(ex -> ex.respond("world")))
                .start();
        endpoint = server.endpoints().get(0);
    }

    private LockstepPeer peer(InetSocketAddress address) {
        LockstepPeer p = LockstepPeer.attach(address.toString(), net, address, clock).defaultDestination(SERVER);
        peers.add(p);
        return p;
    }

    @AfterEach
    void tearDown() {
        peers.forEach(LockstepPeer::close);
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** GET /hello from the innocent client: what comes back. */
    private Message innocentGet(int mid) {
        LockstepPeer innocent = peers.stream().filter(p -> p.address().equals(INNOCENT)).findFirst()
                .orElseGet(() -> peer(INNOCENT));
        innocent.con().get().path("hello").mid(mid).token("0a0b").go();
        return innocent.expect().mid(mid).message();
    }

    @Test
    void unsolicitedResponsesFromOneHostRotatingPortsAreNeverRemembered() {
        start(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)
                .set(CoapConfig.DEDUP_MAX_ENTRIES, 1_000));
        // The measured attack: CON 2.05 with no token (40 45 MID) from one host, 60 ports.
        for (int port = 0; port < 60; port++) {
            LockstepPeer attacker = peer(new InetSocketAddress("10.0.0.66", 50_000 + port));
            for (int mid = 0; mid < 200; mid++) {
                attacker.send(new byte[] {0x40, 0x45, (byte) (mid >> 8), (byte) mid}, SERVER);
            }
        }
        clock.runDue();
        assertEquals(0, endpoint.dedupEntries(), "12,000 unsolicited responses cost no state");
        assertEquals(12_000, endpoint.counters().get(Counter.UNMATCHED));
        assertEquals(Code.CONTENT, ((Response) innocentGet(7)).code(), "the innocent client is served");
    }

    @Test
    void oneHostRotatingPortsHitsItsOwnBudgetNotTheInnocentsOne() {
        start(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)
                .set(CoapConfig.DEDUP_MAX_ENTRIES_PER_SOURCE, 100));
        int answered503 = 0;
        for (int port = 0; port < 60; port++) {
            LockstepPeer attacker = peer(new InetSocketAddress("10.0.0.66", 50_000 + port));
            for (int mid = 0; mid < 5; mid++) {
                attacker.con().get().path("hello").mid(mid).go();
                if (((Response) attacker.expect().mid(mid).message()).code().equals(Code.SERVICE_UNAVAILABLE)) {
                    answered503++;
                }
            }
        }
        assertEquals(100, endpoint.dedupEntries(), "one source holds its budget of 100 over all its ports");
        assertEquals(200, answered503, "the other 200 requests of that host were answered 5.03");
        assertEquals(Code.CONTENT, ((Response) innocentGet(7)).code(), "another source is served");
        assertEquals(101, endpoint.dedupEntries());
    }

    @Test
    void aFullStoreEvictsTheHeaviestSourceInsteadOfRefusingTheNewcomer() {
        start(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)
                .set(CoapConfig.DEDUP_MAX_ENTRIES, 300));
        // three hosts fill the store: 200, 60 and 40 entries
        int[] shares = {200, 60, 40};
        for (int h = 0; h < shares.length; h++) {
            LockstepPeer attacker = peer(new InetSocketAddress("10.0.1." + (h + 1), 50_000));
            for (int mid = 0; mid < shares[h]; mid++) {
                attacker.con().get().path("hello").mid(mid).go();
                assertEquals(Code.CONTENT, ((Response) attacker.expect().mid(mid).message()).code());
            }
        }
        assertEquals(300, endpoint.dedupEntries(), "full");
        Message answer = innocentGet(7);
        assertEquals(Code.CONTENT, ((Response) answer).code(), "the newcomer is served, not refused");
        assertTrue(endpoint.dedupEntries() <= 300, "still within the cap: " + endpoint.dedupEntries());
        // the heaviest host lost entries: its oldest request is no longer a duplicate
        LockstepPeer heaviest = peers.get(0);
        heaviest.con().get().path("hello").mid(0).go();
        assertEquals(Code.CONTENT, ((Response) heaviest.expect().mid(0).message()).code(),
                "processed again: host 10.0.1.1's oldest entry was evicted");
        assertEquals(0, endpoint.counters().get(Counter.REJECTED_OVERLOAD), "nobody was refused");
    }

    @Test
    void aHandlerThatNeverAnswersCannotMakeTheServerHoldUnboundedPendingExchanges() {
        server = CoapServer.builder().connector(net.connector(SERVER)).scheduler(clock).protocolExecutor(Runnable::run)
                .config(CoapConfig.builder().set(CoapConfig.SEPARATE_MAX_PENDING_PER_SOURCE, 10).build())
                .build()
                .add(CoapResource.named("never").onGet(ex -> { }))
                .add(CoapResource.named("hello").onGet(ex -> ex.respond("world")))
                .start();
        endpoint = server.endpoints().get(0);
        int refused = 0;
        for (int port = 0; port < 30; port++) {
            LockstepPeer attacker = peer(new InetSocketAddress("10.0.0.66", 50_000 + port));
            attacker.non().get().path("never").mid(1).go();
            if (attacker.waiting() > 0) {
                attacker.expect().type(Type.NON).code(Code.SERVICE_UNAVAILABLE);
                refused++;
            }
        }
        assertEquals(20, refused, "10 held for the host, the other 20 answered 5.03 at once");
        assertEquals(10, endpoint.counters().get("reliability.pending_responses"));
        assertEquals(Code.CONTENT, ((Response) innocentGet(7)).code(), "another source is served");
    }

    @Test
    void proxyRequestsAreAnswered505AndAThrowingHandlerLeaksNoText() {
        server = CoapServer.builder().connector(net.connector(SERVER)).scheduler(clock).protocolExecutor(Runnable::run)
                .build()
                .add(CoapResource.named("boom").onGet(ex -> {
                    throw new IllegalStateException("secret path /etc/shadow");
                }))
                .start();
        LockstepPeer client = peer(INNOCENT);
        client.con().get().path("hello").option(OptionNumber.PROXY_URI, "coap://10.9.9.9/victim").mid(1).go();
        client.expect().mid(1).code(Code.PROXYING_NOT_SUPPORTED);
        client.con().get().path("boom").mid(2).go();
        assertEquals(0, client.expect().mid(2).code(Code.INTERNAL_SERVER_ERROR).message().payloadLength(),
                "no exception class or message by default");
        assertNotNull(server);
    }
}
