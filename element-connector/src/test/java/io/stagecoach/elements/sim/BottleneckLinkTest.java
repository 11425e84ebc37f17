package io.stagecoach.elements.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.time.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BottleneckLinkTest {

    static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.1", 40000);
    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.1.1", 5683);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final List<Long> arrivals = new ArrayList<>();

    private SimulatedConnector[] attach() throws IOException {
        SimulatedConnector c = net.connector(CLIENT);
        SimulatedConnector s = net.connector(SERVER);
        s.setRawDataReceiver(d -> arrivals.add(d.receiveNanos()));
        c.start();
        s.start();
        return new SimulatedConnector[] {c, s};
    }

    private static void send(SimulatedConnector from, int payload) {
        from.send(RawData.outbound(new byte[payload], EndpointContext.of(SERVER), null));
    }

    @Test
    void deliveryTimeIsSerializationPlusPropagationQueuedBehindEarlierPackets() throws IOException {
        BottleneckLink down = BottleneckLink.builder(30_000, Duration.ofMillis(400)).build();
        net.setLink(CLIENT, SERVER, down);
        SimulatedConnector client = attach()[0];
        long t0 = clock.nanoTime();
        send(client, 100);
        send(client, 100);
        clock.advance(Duration.ofSeconds(2));
        // 100 + 28 overhead = 128 B = 1024 bit at 30 kbit/s = 34 133 333.3 ns, rounded up
        long ser = 34_133_334L;
        assertEquals(ser, down.serializationNanos(128));
        assertEquals(List.of(ser + 400_000_000L, 2 * ser + 400_000_000L),
                arrivals.stream().map(t -> t - t0).toList(), "second packet waits for the first");
        assertEquals(2 * 128, down.counters().bytesDelivered(), "bytes counted with UDP+IPv4 overhead");
    }

    @Test
    void burstLargerThanTheBufferDropsExactlyTheOverflow() throws IOException {
        BottleneckLink up = BottleneckLink.builder(60_000, Duration.ofMillis(200)).bufferBytes(2_500).build();
        net.setLink(CLIENT, SERVER, up);
        SimulatedConnector client = attach()[0];
        for (int i = 0; i < 50; i++) {
            send(client, 100);
        }
        clock.advance(Duration.ofSeconds(5));
        int fit = 2_500 / 128; // 19 packets of 128 wire bytes fit, counting the one on the wire
        assertEquals(fit, arrivals.size());
        assertEquals(50 - fit, up.counters().droppedBuffer());
        assertEquals(50, up.counters().packetsSent());
        assertEquals(fit, up.counters().packetsDelivered());
        send(client, 100);
        clock.advance(Duration.ofSeconds(1));
        assertEquals(fit + 1, arrivals.size(), "after the queue drained the link accepts again");
        assertEquals(128, up.queuedBytes(), "only the last packet is counted in the buffer");
    }

    @Test
    void packetsLargerThanTheMtuAreDropped() throws IOException {
        BottleneckLink link = BottleneckLink.builder(1_000_000, Duration.ZERO).mtu(1280).build();
        net.setLink(CLIENT, SERVER, link);
        SimulatedConnector client = attach()[0];
        send(client, 1253); // 1281 on the wire
        send(client, 1252); // 1280 on the wire
        clock.advance(Duration.ofSeconds(1));
        assertEquals(1, arrivals.size());
        assertEquals(1, link.counters().droppedMtu());
    }

    @Test
    void congestionTopologyRoutesThroughSharedLinksBothWays() throws IOException {
        BottleneckLink up = BottleneckLink.builder(60_000, Duration.ofMillis(200)).bufferBytes(2_500).build();
        BottleneckLink down = BottleneckLink.builder(30_000, Duration.ofMillis(400)).bufferBytes(2_500).build();
        LinkConditions lan = LinkConditions.builder().delay(Duration.ofMillis(10)).jitter(Duration.ofMillis(10)).build();
        ImpairedLink routerToServer = new ImpairedLink(lan);
        ImpairedLink serverToRouter = new ImpairedLink(lan);
        net.setRoute(Route.star(SERVER, List.of(up, routerToServer), List.of(serverToRouter, down)));

        SimulatedConnector client = net.connector(CLIENT);
        SimulatedConnector server = net.connector(SERVER);
        List<Long> atClient = new ArrayList<>();
        server.setRawDataReceiver(d -> {
            arrivals.add(d.receiveNanos());
            server.send(RawData.outbound(d.bytes(), d.context(), null)); // echo
        });
        client.setRawDataReceiver(d -> atClient.add(d.receiveNanos()));
        client.start();
        server.start();
        long t0 = clock.nanoTime();
        send(client, 22); // 50 B on the wire
        clock.advance(Duration.ofSeconds(2));

        long upSer = up.serializationNanos(50);
        long downSer = down.serializationNanos(50);
        long there = arrivals.get(0) - t0;
        assertTrue(there >= upSer + 210_000_000L && there <= upSer + 220_000_000L, "uplink+LAN took " + there);
        long back = atClient.get(0) - arrivals.get(0);
        assertTrue(back >= downSer + 410_000_000L && back <= downSer + 420_000_000L, "LAN+downlink took " + back);
        assertEquals(1, up.counters().packetsDelivered());
        assertEquals(1, down.counters().packetsDelivered());
    }

    @Test
    void builderRejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> BottleneckLink.builder(0, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> BottleneckLink.builder(1, Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> BottleneckLink.builder(1, Duration.ZERO).bufferBytes(0));
        assertThrows(IllegalArgumentException.class, () -> LinkConditions.builder().lossProbability(1.5));
        assertThrows(IllegalArgumentException.class, () -> LinkConditions.builder().lossProbability(Double.NaN));
    }
}
