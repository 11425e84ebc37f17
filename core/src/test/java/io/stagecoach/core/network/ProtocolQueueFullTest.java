package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A protocol stage with no room (its executor refuses every task): CON requests are answered 5.03
 * with Max-Age from the receive thread; everything else is dropped and counted.
 */
class ProtocolQueueFullTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 3);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint server;
    private LockstepPeer peer;

    @BeforeEach
    void start() throws Exception {
        server = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .executor(task -> {
                    throw new RejectedExecutionException("full");
                }).build();
        server.start();
        peer = LockstepPeer.attach("client", net, new InetSocketAddress("10.0.0.2", 40000), clock)
                .defaultDestination(serverAddress);
    }

    @AfterEach
    void stop() {
        server.destroy();
        peer.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * <pre>
     * client                                   server (queue full)
     *  | CON GET /x MID=0x1111 T=a1b2 ------------>|
     *  |<----- ACK 5.03 MID=0x1111 T=a1b2 Max-Age=2 |
     *  | NON GET /x MID=0x2222 ------------------->|   dropped
     *  | CON 0.00 (ping) MID=0x3333 -------------->|   dropped: not a request
     * </pre>
     */
    @Test
    void conRequestGets503WithMaxAgeAndTheRestIsDropped() {
        peer.con().get().mid(0x1111).token("a1b2").path("x").go();
        peer.expect().type(Type.ACK).code(Code.SERVICE_UNAVAILABLE).mid(0x1111).token("a1b2").optionUint(io.stagecoach.core.coap.OptionNumber.MAX_AGE, 2);
        peer.non().get().mid(0x2222).path("x").go();
        peer.ping(0x3333).go();
        peer.expectNothingFor(Duration.ofSeconds(1));
        assertEquals(1, server.counters().get(Counter.REJECTED_OVERLOAD));
        assertEquals(2, server.counters().get(Counter.DROPPED_QUEUE_FULL));
    }
}
