package io.stagecoach.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * stop() then start(), three times, for CoapEndpoint and CoapServer, over loopback UDP (real
 * threads) and over the in-memory network (virtual clock): each cycle answers a request, each
 * stop releases the port, and destroy() returns only after every thread it owned has ended (the
 * check right after it allows no grace period).
 */
class LifecycleTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<Runnable> cleanup = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        cleanup.forEach(Runnable::run);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static CoapEndpoint udpEndpoint() {
        return CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(LOOPBACK, 0)).build()).build();
    }

    private static void assertPortFree(int port) throws Exception {
        try (DatagramSocket s = new DatagramSocket(port, LOOPBACK)) {
            assertEquals(port, s.getLocalPort(), "stop() released the port");
        }
    }

    private static void assertNoThreadRightNow() {
        assertEquals(List.of(), ThreadLeakCheck.liveThreads(ThreadLeakCheck.PREFIX).stream().map(Thread::getName)
                .toList(), "destroy() returned while its threads were still alive");
    }

    @Test
    void endpointStopStartOverUdp() throws Exception {
        CoapEndpoint server = udpEndpoint();
        CoapEndpoint client = udpEndpoint();
        cleanup.add(server::destroy);
        cleanup.add(client::destroy);
        AtomicInteger served = new AtomicInteger();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                server.respond(exchange, Response.forRequest(request, Code.CONTENT)
                        .payload("n=" + served.incrementAndGet()).build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        client.start();
        for (int cycle = 1; cycle <= 3; cycle++) {
            server.start();
            int port = server.address().getPort();
            String uri = "coap://" + LOOPBACK.getHostAddress() + ":" + port + "/x";
            assertEquals("n=" + cycle, new CoapClient(uri, client).timeout(Duration.ofSeconds(5)).get().payloadText(),
                    "cycle " + cycle + " answers");
            server.stop();
            assertFalse(server.isRunning());
            assertPortFree(port);
        }
        server.destroy();
        client.destroy();
        assertNoThreadRightNow();
    }

    @Test
    void endpointStopStartInMemoryFailsOpenExchanges() throws Exception {
        VirtualClock clock = new VirtualClock();
        SimulatedNetwork net = new SimulatedNetwork(clock, 9);
        net.setDefaultConditions(LinkConditions.builder().delay(Duration.ofMillis(10)).build());
        InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
        CoapEndpoint serverEndpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        CoapServer server = CoapServer.builder().endpoint(serverEndpoint).build();
        server.add(new CoapResource("x").onGet(ex -> ex.respond("up")));
        CoapEndpoint client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).build();
        cleanup.add(server::destroy);
        cleanup.add(client::destroy);
        for (int cycle = 1; cycle <= 3; cycle++) {
            server.start();
            client.start();
            List<Object> outcomes = new ArrayList<>();
            Exchange.Listener listener = new Exchange.Listener() {
                @Override
                public void onResponse(Exchange exchange, Response response) {
                    outcomes.add(response.payloadString());
                }

                @Override
                public void onFailure(Exchange exchange, Throwable failure) {
                    outcomes.add(failure);
                }
            };
            client.sendRequest(get("coap://10.0.0.1/x"), listener);
            clock.advance(Duration.ofMillis(20));
            assertEquals(List.of("up"), outcomes, "cycle " + cycle + " answers");
            client.sendRequest(get("coap://10.0.0.1/x"), listener);
            client.stop(); // before the answer arrives: the open exchange fails
            assertEquals(2, outcomes.size());
            assertInstanceOf(ExchangeFailedException.class, outcomes.get(1));
            assertEquals(0, client.openExchanges());
            clock.advance(Duration.ofSeconds(1));
            server.stop();
            assertEquals(0, serverEndpoint.openExchanges());
        }
    }

    @Test
    void serverWithOwnedThreadsStopStartOverUdp() throws Exception {
        CoapServer server = CoapServer.builder().udp(new InetSocketAddress(LOOPBACK, 0)).resourceThreads(2, 8).build();
        server.add(new CoapResource("t").onGet(ex -> ex.respond(Thread.currentThread().getName())));
        CoapEndpoint client = udpEndpoint();
        cleanup.add(server::destroy);
        cleanup.add(client::destroy);
        client.start();
        for (int cycle = 1; cycle <= 3; cycle++) {
            server.start();
            int port = server.port();
            String thread = new CoapClient("coap://" + LOOPBACK.getHostAddress() + ":" + port + "/t", client)
                    .timeout(Duration.ofSeconds(5)).get().payloadText();
            assertTrue(thread.startsWith(BoundedExecutors.THREAD_PREFIX + "server-"), "ran on " + thread);
            server.stop();
            assertFalse(server.isRunning());
            assertPortFree(port);
        }
        server.destroy();
        client.destroy();
        assertNoThreadRightNow();
    }

    private static Request get(String uri) {
        return Request.get().uri(uri).build();
    }
}
