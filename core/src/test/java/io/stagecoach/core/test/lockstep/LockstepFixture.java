package io.stagecoach.core.test.lockstep;

import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;

/** Two lockstep peers, "client" at {@link #A} and "server" at {@link #B}, on one simulated network. */
abstract class LockstepFixture {

    static final InetSocketAddress A = new InetSocketAddress("10.0.0.1", 5683);
    static final InetSocketAddress B = new InetSocketAddress("10.0.0.2", 5683);

    final VirtualClock clock = new VirtualClock();
    final SimulatedNetwork net = new SimulatedNetwork(clock, 42);
    final LockstepPeer client = LockstepPeer.attach("client", net, A, clock).defaultDestination(B);
    final LockstepPeer server = LockstepPeer.attach("server", net, B, clock).defaultDestination(A);

    @AfterEach
    void closePeers() {
        client.close();
        server.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Runs {@code body}, which must fail, and returns the failure message. */
    static String failureOf(Runnable body) {
        return org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, body::run).getMessage();
    }
}
