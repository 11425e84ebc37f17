package io.stagecoach.examples.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One test per in-process fault kind (HANDLER_THROWS, LAYER_THROWS, EXECUTOR_REJECTS) over the
 * in-memory network on the virtual clock, protocol stages inline: the fault at 100 % for one CON
 * GET, then 0 % for the next, which is served 2.05. Afterwards, once EXCHANGE_LIFETIME and a
 * sweep have passed on the virtual clock, both endpoints hold no exchange and no dedup entry, and
 * destroy() leaves no thread. RECEIVER_DIES needs a real receive thread: {@link ReceiverDiesUdpTest}.
 */
class FaultInjectionSimTest {

    private static final Duration ONE_WAY = Duration.ofMillis(10);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final FaultInjector faults = FaultInjector.builder().seed(11).build();
    private CoapServer server;
    private CoapEndpoint serverEndpoint;
    private CoapEndpoint clientEndpoint;

    @BeforeEach
    void start() throws Exception {
        net.setDefaultConditions(LinkConditions.builder().delay(ONE_WAY).build());
        server = faults.installOn(CoapServer.builder().connector(net.connector(new InetSocketAddress("10.0.0.1", 5683)))
                .scheduler(clock).protocolExecutor(Runnable::run)
                .configureEndpoints(b -> b.random(new SplittableRandom(1)))).build();
        serverEndpoint = server.endpoints().get(0);
        server.add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));
        server.start();
        clientEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).build();
        clientEndpoint.start();
    }

    @AfterEach
    void stop() {
        Duration lifetime = serverEndpoint.config().get(CoapConfig.EXCHANGE_LIFETIME);
        Duration sweep = serverEndpoint.config().get(CoapConfig.DEDUP_SWEEP_INTERVAL);
        clock.advance(lifetime.plus(sweep).plusSeconds(1));
        assertEquals(0, serverEndpoint.openExchanges(), "server exchanges left after EXCHANGE_LIFETIME + sweep");
        assertEquals(0, serverEndpoint.dedupEntries(), "server dedup entries left");
        assertEquals(0, clientEndpoint.openExchanges(), "client exchanges left");
        server.destroy();
        clientEndpoint.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private CoapResponse get() {
        CompletableFuture<CoapResponse> f = new CoapClient("coap://10.0.0.1:5683/hello", clientEndpoint).getAsync();
        clock.advance(ONE_WAY.multipliedBy(2));
        assertTrue(f.isDone(), () -> "no answer after one round trip; server " + serverEndpoint.counters());
        return f.join();
    }

    /** The fault at 100 % answers {@code expected}; at 0 % the next GET is served 2.05 "world". */
    private CoapResponse failOnceThenServe(FaultKind kind, Code expected) {
        faults.setRate(kind, 1.0);
        CoapResponse failed = get();
        assertEquals(expected, failed.code(), "GET /hello with " + kind + " at 100 % came back " + failed);
        assertEquals(Type.ACK, failed.advanced().type(), "the error is piggybacked on the ACK");
        assertEquals(1, faults.injected(kind), kind + " injected once");
        faults.setRate(kind, 0.0);
        CoapResponse served = get();
        assertEquals(Code.CONTENT, served.code(), "GET /hello with " + kind + " at 0 % came back " + served);
        assertEquals("world", served.payloadText());
        assertEquals(1, faults.injected(kind), "no fault at 0 %");
        return failed;
    }

    @Test
    void throwingHandlerIsAnswered500ThenTheNextRequestIsServed() {
        CoapResponse failed = failOnceThenServe(FaultKind.HANDLER_THROWS, Code.INTERNAL_SERVER_ERROR);
        // RFC 7252 §5.5.2 allows a diagnostic payload; by default none tells a stranger our classes
        assertEquals("", failed.payloadText(), "no diagnostic payload unless coap.server.error-diagnostics");
        assertEquals(1, server.counters().get(0).handlerErrors(), "counted as a handler error");
    }

    @Test
    void throwingLayerIsAnswered500AndTheExchangeEnds() {
        assertTrue(serverEndpoint.layerNames().contains(FaultInjector.LAYER_NAME), serverEndpoint.layerNames()::toString);
        failOnceThenServe(FaultKind.LAYER_THROWS, Code.INTERNAL_SERVER_ERROR);
        assertEquals(1, serverEndpoint.counters().get(Counter.STACK_ERRORS), "counted as a stack error");
        assertEquals(0, serverEndpoint.openExchanges(), "the failed exchange did not stay open");
    }

    @Test
    void rejectingExecutorIsAnswered503WithMaxAgeThenTheNextRequestIsServed() {
        CoapResponse failed = failOnceThenServe(FaultKind.EXECUTOR_REJECTS, Code.SERVICE_UNAVAILABLE);
        assertTrue(failed.options().maxAge() > 0, "5.03 carries Max-Age, came back " + failed.options().maxAge());
        assertEquals(1, server.counters().get(0).rejectedOverload(), "counted as overload");
    }
}
