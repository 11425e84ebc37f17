package io.stagecoach.elements.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.time.VirtualClock;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedNetworkTest {

    static final InetSocketAddress A = new InetSocketAddress("10.0.0.1", 5683);
    static final InetSocketAddress B = new InetSocketAddress("10.0.0.2", 5683);
    static final int N = 10_000;

    private final VirtualClock clock = new VirtualClock();

    /** Arrival of one datagram: the sequence number it carried and when it arrived. */
    record Arrival(int seq, long nanos) {
    }

    static byte[] seq(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    /** Sends N numbered packets A->B, one per millisecond, and returns what B received, in order. */
    private List<Arrival> run(SimulatedNetwork net) throws IOException {
        SimulatedConnector a = net.connector(A);
        SimulatedConnector b = net.connector(B);
        List<Arrival> got = new ArrayList<>();
        b.setRawDataReceiver(d -> got.add(new Arrival(d.buffer().getInt(), d.receiveNanos())));
        a.start();
        b.start();
        for (int i = 0; i < N; i++) {
            a.send(RawData.outbound(seq(i), EndpointContext.of(B), null));
            clock.advance(Duration.ofMillis(1));
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(N, a.counters().sent());
        return got;
    }

    @Test
    void tenPercentLossLosesAboutATenth() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 1);
        ImpairedLink link = net.setDefaultConditions(LinkConditions.builder().lossProbability(0.1).build());
        List<Arrival> got = run(net);
        long lost = N - got.size();
        assertTrue(lost >= 900 && lost <= 1100, "sent " + N + " at 10% loss, lost " + lost);
        assertEquals(lost, link.counters().droppedLoss());
        assertEquals(got.size(), link.counters().packetsDelivered());
    }

    @Test
    void tenPercentDuplicationDuplicatesAboutATenth() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 2);
        ImpairedLink link = net.setDefaultConditions(LinkConditions.builder().duplicationProbability(0.1).build());
        List<Arrival> got = run(net);
        long dups = got.size() - N;
        assertTrue(dups >= 900 && dups <= 1100, "sent " + N + " at 10% duplication, got " + got.size());
        assertEquals(dups, link.counters().duplicated());
        assertEquals(N, got.stream().mapToInt(Arrival::seq).distinct().count(), "every packet arrived");
    }

    @Test
    void reorderingHoldsBackAboutATenthAndLetsOthersOvertake() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 3);
        ImpairedLink link = net.setDefaultConditions(
                LinkConditions.builder().reordering(0.1, Duration.ofMillis(20)).build());
        List<Arrival> got = run(net);
        assertEquals(N, got.size());
        long held = link.counters().reordered();
        assertTrue(held >= 900 && held <= 1100, "held back " + held);
        int inversions = 0;
        for (int i = 1; i < got.size(); i++) {
            if (got.get(i).seq() < got.get(i - 1).seq()) {
                inversions++;
            }
        }
        // a packet held back by up to 20 ms behind packets 1 ms apart is overtaken unless its draw is < 1 ms
        assertTrue(inversions >= 700 && inversions <= held, "inversions " + inversions + ", held " + held);
    }

    @Test
    void delayAndJitterStayWithinBoundsAndArriveOnTheVirtualClock() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 4);
        net.setDefaultConditions(LinkConditions.builder().delay(Duration.ofMillis(10))
                .jitter(Duration.ofMillis(5)).build());
        long start = clock.nanoTime();
        List<Arrival> got = run(net);
        for (Arrival a : got) {
            long sentAt = start + a.seq() * 1_000_000L;
            long delay = a.nanos() - sentAt;
            assertTrue(delay >= 10_000_000 && delay <= 15_000_000, "packet " + a.seq() + " took " + delay + " ns");
        }
    }

    private List<Arrival> impairedRun(long seed) throws IOException {
        VirtualClock c = new VirtualClock();
        SimulatedNetwork net = new SimulatedNetwork(c, seed);
        net.setDefaultConditions(LinkConditions.builder().lossProbability(0.05).duplicationProbability(0.05)
                .reordering(0.05, Duration.ofMillis(30)).delay(Duration.ofMillis(5)).jitter(Duration.ofMillis(3))
                .build());
        SimulatedConnector a = net.connector(A);
        SimulatedConnector b = net.connector(B);
        List<Arrival> got = new ArrayList<>();
        b.setRawDataReceiver(d -> got.add(new Arrival(d.buffer().getInt(), d.receiveNanos())));
        a.start();
        b.start();
        for (int i = 0; i < 2000; i++) {
            a.send(RawData.outbound(seq(i), EndpointContext.of(B), null));
            c.advance(Duration.ofMillis(1));
        }
        c.advance(Duration.ofSeconds(1));
        return got;
    }

    @Test
    void sameSeedGivesTheSameOutcome() throws IOException {
        List<Arrival> first = impairedRun(42);
        assertEquals(first, impairedRun(42), "same seed, same sends: identical arrivals and times");
        assertNotEquals(first, impairedRun(43), "another seed differs");
    }

    @Test
    void conditionsAreDirectionalAndDeliveryWaitsForTheScheduler() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 5);
        net.setConditions(A, B, LinkConditions.builder().lossProbability(1.0).build());
        SimulatedConnector a = net.connector(A);
        SimulatedConnector b = net.connector(B);
        List<String> log = new ArrayList<>();
        a.setRawDataReceiver(d -> log.add("A got " + d.size() + " on " + Thread.currentThread().getName()));
        b.setRawDataReceiver(d -> log.add("B got " + d.size()));
        a.start();
        b.start();
        a.send(RawData.outbound(new byte[1], EndpointContext.of(B), null));
        b.send(RawData.outbound(new byte[2], EndpointContext.of(A), null));
        assertTrue(log.isEmpty(), "nothing is delivered inside send()");
        clock.runDue();
        assertEquals(List.of("A got 2 on " + Thread.currentThread().getName()), log,
                "A->B is lossy, B->A is perfect; delivery ran on the thread advancing the clock");
    }

    @Test
    void addressesBindOnceAndUnattachedDestinationsAreCounted() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 6);
        SimulatedConnector a = net.connector(A);
        a.start();
        assertThrows(BindException.class, () -> net.connector(A).start());
        SimulatedConnector any = net.connector(new InetSocketAddress("10.0.0.3", 0));
        any.start();
        assertNotEquals(0, any.getAddress().getPort(), "port 0 got a real port");
        a.send(RawData.outbound(new byte[1], EndpointContext.of(B), null));
        clock.runDue();
        assertEquals(1, net.undeliverable(), "nobody at B");
        a.stop();
        net.connector(A).start(); // stop released the address
    }

    @Test
    void oversizeAndStoppedSendsFailAndReceiverExceptionsAreContained() throws IOException {
        SimulatedNetwork net = new SimulatedNetwork(clock, 7);
        SimulatedConnector a = net.connector(A).withMaxDatagramSize(10);
        SimulatedConnector b = net.connector(B);
        int[] got = {0};
        b.setRawDataReceiver(d -> {
            got[0]++;
            throw new IllegalStateException("test: receiver failure");
        });
        a.start();
        b.start();
        List<SendFailedException.Reason> failures = new ArrayList<>();
        SendCallback cb = new SendCallback() {
            @Override
            public void onSent() {
            }

            @Override
            public void onFailed(Throwable cause) {
                failures.add(((SendFailedException) cause).reason());
            }
        };
        a.send(RawData.outbound(new byte[11], EndpointContext.of(B), cb));
        a.send(RawData.outbound(new byte[10], EndpointContext.of(B), cb));
        a.send(RawData.outbound(new byte[10], EndpointContext.of(B), cb));
        clock.runDue();
        assertEquals(2, got[0], "both 10-byte datagrams delivered although the receiver threw on each");
        a.stop();
        a.send(RawData.outbound(new byte[1], EndpointContext.of(B), cb));
        assertEquals(List.of(SendFailedException.Reason.OVERSIZE, SendFailedException.Reason.STOPPED), failures);
        assertEquals(1, a.counters().droppedOversize());
        assertEquals(1, a.counters().sendErrors());
    }
}
