package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.CongestionControlMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CoapEndpoint#resetCongestionState}: with DEFAULT_FULL_BACKOFF_1, ACK_TIMEOUT 2 s and
 * ACK_RANDOM_FACTOR 1.0, an exchange that needed one retransmission leaves a carried timeout of
 * 4 s; after a reset the next exchange starts at 2 s again.
 */
class ResetCongestionStateTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 3);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint server;
    private CoapEndpoint client;
    private final AtomicInteger responses = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        server = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("x").build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.CONGESTION_CONTROL, CongestionControlMode.DEFAULT_FULL_BACKOFF_1)
                .set(CoapConfig.ACK_RANDOM_FACTOR, 1.0)
                .build();
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).config(config).build();
        client.start();
    }

    @AfterEach
    void stop() {
        client.destroy();
        server.destroy();
    }

    /** First exchange: the server is down for the first copy and up for the retransmission at 2 s. */
    private void exchangeWithOneRetransmission() throws Exception {
        send();
        clock.advance(Duration.ofSeconds(1));
        server.start();
        clock.advance(Duration.ofSeconds(2));
        assertEquals(1, responses.get(), "response to the retransmission at 2 s");
        assertEquals(1, client.counters().get(Counter.RETRANSMISSIONS));
        server.stop();
    }

    private void send() {
        client.sendRequest(Request.get().peer(EndpointContext.of(serverAddress)).build(), new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                responses.incrementAndGet();
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
            }
        });
    }

    @Test
    void withoutResetTheNextExchangeStartsAtTheCarriedTimeout() throws Exception {
        exchangeWithOneRetransmission();
        send(); // server down: the first timeout is the carried 4 s, not 2 s
        clock.advance(Duration.ofMillis(3_900));
        assertEquals(1, client.counters().get(Counter.RETRANSMISSIONS), "retransmitted before the carried 4 s");
        clock.advance(Duration.ofMillis(200));
        assertEquals(2, client.counters().get(Counter.RETRANSMISSIONS), "no retransmission at 4 s");
    }

    @Test
    void afterResetTheNextExchangeStartsAtAckTimeout() throws Exception {
        exchangeWithOneRetransmission();
        client.resetCongestionState(serverAddress);
        send();
        clock.advance(Duration.ofMillis(1_900));
        assertEquals(1, client.counters().get(Counter.RETRANSMISSIONS), "retransmitted before 2 s");
        clock.advance(Duration.ofMillis(200));
        assertEquals(2, client.counters().get(Counter.RETRANSMISSIONS),
                "after the reset the first timeout should be ACK_TIMEOUT = 2 s");
    }

    @Test
    void resetOfUnknownPeerIsHarmlessAndNullIsRejected() {
        client.resetCongestionState(new InetSocketAddress("10.0.0.77", 5683));
        assertThrows(NullPointerException.class, () -> client.resetCongestionState(null));
        assertEquals(0, client.openExchanges());
    }
}
