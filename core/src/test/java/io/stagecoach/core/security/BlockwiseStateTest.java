package io.stagecoach.core.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Block-wise uploads cost the server state only when they can succeed, and a full store makes
 * room instead of refusing (docs/security.md, outcome 5; RFC 7959 §2.5 and §2.9.3). The byte
 * budget of the Block2 cache and the eviction order are unit-tested in BlockwiseStatusStoreTest.
 * Amplification limit off: these uploads come from scripted peers that do not return Echo values.
 */
class BlockwiseStateTest {

    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 17);
    private final List<LockstepPeer> peers = new ArrayList<>();
    private CoapServer server;
    private CoapEndpoint endpoint;

    @BeforeEach
    void start() {
        server = CoapServer.builder().connector(net.connector(SERVER)).scheduler(clock).protocolExecutor(Runnable::run)
                .config(CoapConfig.builder().set(CoapConfig.AMPLIFICATION_FACTOR, 0)
                        .set(CoapConfig.BLOCKWISE_MAX_TRANSFERS, 4).build())
                .build()
                .add(CoapResource.named("store").onPut(ex -> ex.respond(Code.CHANGED)))
                .add(CoapResource.named("readonly").onGet(ex -> ex.respond("r")))
                .start();
        endpoint = server.endpoints().get(0);
    }

    @AfterEach
    void tearDown() {
        peers.forEach(LockstepPeer::close);
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private LockstepPeer peer(int i) {
        InetSocketAddress address = new InetSocketAddress("10.0.3." + (i % 250 + 1), 40_000 + i);
        LockstepPeer p = LockstepPeer.attach(address.toString(), net, address, clock).defaultDestination(SERVER);
        peers.add(p);
        return p;
    }

    @Test
    void firstBlocksToAMissingResourceOrAMethodItRefusesKeepNothing() {
        for (int i = 0; i < 100; i++) {
            LockstepPeer p = peer(i);
            p.con().put().path("missing").mid(1).token("01").block1(0, true, 2).payload("x".repeat(64)).go();
            p.expect().mid(1).code(Code.NOT_FOUND);
            p.con().put().path("readonly").mid(2).token("02").block1(0, true, 2).payload("x".repeat(64)).go();
            p.expect().mid(2).code(Code.METHOD_NOT_ALLOWED);
        }
        assertEquals(0, endpoint.blockwiseTransfers(), "200 first blocks, no upload state");
    }

    @Test
    void aFullStoreMakesRoomForANewUploadByEvictingTheOldest() {
        for (int i = 0; i < 4; i++) {
            LockstepPeer p = peer(i);
            p.con().put().path("store").mid(1).token("01").block1(0, true, 2).payload("a".repeat(64)).go();
            p.expect().mid(1).code(Code.CONTINUE).block1(0, true, 2);
        }
        assertEquals(4, endpoint.blockwiseTransfers(), "full");
        LockstepPeer newcomer = peer(10);
        newcomer.con().put().path("store").mid(1).token("01").block1(0, true, 2).payload("b".repeat(64)).go();
        newcomer.expect().mid(1).code(Code.CONTINUE).block1(0, true, 2);
        newcomer.con().put().path("store").mid(2).token("02").block1(1, false, 2).payload("b".repeat(10)).go();
        newcomer.expect().mid(2).code(Code.CHANGED).block1(1, false, 2);

        // the oldest upload was evicted: its next block finds no state (RFC 7959 §2.9.2)
        LockstepPeer oldest = peers.get(0);
        oldest.con().put().path("store").mid(2).token("02").block1(1, false, 2).payload("a".repeat(10)).go();
        oldest.expect().mid(2).code(Code.REQUEST_ENTITY_INCOMPLETE);
        LockstepPeer second = peers.get(1);
        second.con().put().path("store").mid(2).token("02").block1(1, false, 2).payload("a".repeat(10)).go();
        second.expect().mid(2).code(Code.CHANGED);
    }
}
