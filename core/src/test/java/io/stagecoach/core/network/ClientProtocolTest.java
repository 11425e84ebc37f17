package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client side of RFC 7252 §4 against a scripted server peer, on the virtual clock. */
class ClientProtocolTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final List<Object> outcomes = new ArrayList<>();
    private CoapEndpoint client;
    private LockstepPeer server;

    @BeforeEach
    void start() throws Exception {
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(9)).build();
        client.start();
        server = LockstepPeer.attach("server", net, serverAddress, clock);
    }

    @AfterEach
    void stop() {
        assertEquals(0, client.openExchanges(), "exchanges left in the store");
        client.destroy();
        server.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private Exchange get(String path) {
        Request.Builder b = Request.get().peer(EndpointContext.of(serverAddress));
        b.options().uriPath(path);
        return client.sendRequest(b.build(), new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                outcomes.add(response);
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                outcomes.add(cause);
            }
        });
    }

    /**
     * <pre>
     * client                          server (scripted)
     *  | CON GET /a MID=m ------------->|  t=0        (lost: no answer)
     *  | CON GET /a MID=m ------------->|  t=T        T in [2 s, 3 s]
     *  | CON GET /a MID=m ------------->|  t=3T       timeout doubles (RFC 7252 §4.2)
     *  |<------------- ACK 2.05 MID=m   |
     * </pre>
     */
    @Test
    void retransmitsWithBinaryBackoffUntilTheAck() {
        get("a");
        server.markTime();
        server.expect().type(Type.CON).code(Code.GET).storeMid("m").storeToken("t");
        long t = server.expectWithin(Duration.ofSeconds(4)).type(Type.CON).sameMid("m").elapsed().toMillis();
        assertTrue(t >= 2000 && t <= 3001, "first timeout " + t + " ms is in [ACK_TIMEOUT, 1.5 ACK_TIMEOUT]");
        long t2 = server.expectWithin(Duration.ofSeconds(7)).sameMid("m").elapsed().toMillis();
        assertTrue(Math.abs(t2 - 3 * t) <= 2, "second retransmission at 3T: " + t2 + " vs T=" + t);
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).payload("ok").to(client.address()).go();
        clock.advance(Duration.ZERO);
        assertEquals(1, outcomes.size());
        assertEquals("ok", ((Response) outcomes.get(0)).payloadString());
        server.expectNothingFor(Duration.ofSeconds(100));
    }

    /** NSTART=1: the second request to the same peer waits until the first one's ACK arrives (§4.7). */
    @Test
    void secondRequestWaitsForNstart() {
        get("first");
        get("second");
        server.expect().path("first").storeMid("m1").storeToken("t1");
        server.expectNothing();
        server.ack(server.mid("m1")).response(Code.CONTENT).token(server.token("t1")).to(client.address()).go();
        server.expect().path("second").storeMid("m2").storeToken("t2");
        server.ack(server.mid("m2")).response(Code.CONTENT).token(server.token("t2")).to(client.address()).go();
        clock.advance(Duration.ZERO);
        assertEquals(2, outcomes.size());
    }

    /** A RST to the request fails the exchange with ExchangeRejectedException and stops retransmission. */
    @Test
    void rstFailsTheExchange() {
        get("x");
        server.expect().storeMid("m");
        server.rst(server.mid("m")).to(client.address()).go();
        clock.advance(Duration.ZERO);
        assertInstanceOf(ExchangeRejectedException.class, outcomes.get(0));
        server.expectNothingFor(Duration.ofSeconds(100));
    }

    /** A CON response nobody waits for is answered with RST (§4.2). */
    @Test
    void unknownConResponseIsReset() {
        server.con().response(Code.CONTENT).mid(0x4444).token("abcdef").to(client.address()).go();
        server.expect().rst(0x4444);
        assertNull(outcomes.isEmpty() ? null : outcomes.get(0));
    }
}
