package io.stagecoach.examples.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * RECEIVER_DIES over real UDP on loopback: the server's receive thread dies with an Error on the
 * first datagram; UdpConnector replaces it, so the client's retransmission of that CON GET and a
 * new GET are both answered 2.05. Waits are a latch and the client's own timeout (generous, real
 * time); nothing sleeps.
 */
class ReceiverDiesUdpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void deadReceiveThreadIsReplacedAndTheServerStillAnswers() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        FaultInjector faults = FaultInjector.builder().seed(3).rate(FaultKind.RECEIVER_DIES, 1.0).build();
        UdpConnector udp = UdpConnector.builder().bindAddress(new InetSocketAddress(loopback, 0)).build();
        WatchDeaths watch = new WatchDeaths(udp);
        CoapEndpoint serverEndpoint = CoapEndpoint.builder().connector(faults.connector(watch)).build();
        CoapServer server = CoapServer.builder().endpoint(serverEndpoint).build();
        server.add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));
        CoapEndpoint clientEndpoint = CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(loopback, 0)).build()).build();
        try {
            server.start();
            clientEndpoint.start();
            String uri = "coap://" + loopback.getHostAddress() + ":" + server.port() + "/hello";
            CoapClient client = new CoapClient(uri, clientEndpoint).timeout(TIMEOUT);

            CompletableFuture<CoapResponse> first = client.getAsync();
            assertTrue(watch.died.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the receive thread never died");
            faults.setRate(FaultKind.RECEIVER_DIES, 0.0);
            Thread dead = watch.deadThread.get();
            assertNotNull(dead);
            dead.join(TIMEOUT.toMillis());
            assertFalse(dead.isAlive(), dead.getName() + " ended");
            assertEquals(1, udp.counters().receiverRestarts(), "one replacement receive thread started");

            CoapResponse second = client.get();
            assertEquals(Code.CONTENT, second.code(), "new GET after the receive thread died came back " + second);
            assertEquals("world", second.payloadText());
            CoapResponse retransmitted = first.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(Code.CONTENT, retransmitted.code(),
                    "the first GET, lost with the dead thread, answered after the client's retransmission");
            assertEquals(1, faults.injected(FaultKind.RECEIVER_DIES), "exactly one datagram killed a thread");
            assertEquals(0, clientEndpoint.openExchanges(), "client exchanges left");
        } finally {
            clientEndpoint.destroy();
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Between the faulty receiver and the UDP connector: counts down when the receiver throws an Error. */
    private static final class WatchDeaths extends ForwardingConnector {
        final CountDownLatch died = new CountDownLatch(1);
        final AtomicReference<Thread> deadThread = new AtomicReference<>();

        WatchDeaths(Connector delegate) {
            super(delegate);
        }

        @Override
        public void setRawDataReceiver(RawDataReceiver receiver) {
            super.setRawDataReceiver(data -> {
                try {
                    receiver.receiveData(data);
                } catch (InjectedError e) {
                    deadThread.set(Thread.currentThread());
                    died.countDown();
                    throw e;
                }
            });
        }
    }
}
