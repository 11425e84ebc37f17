package io.stagecoach.elements.udp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The same contract, on real loopback sockets, for the JDK and the Netty UDP connector. */
class UdpConnectorContractTest {

    private static final long TIMEOUT_S = 20;
    private static final InetSocketAddress LOOPBACK_ANY_PORT =
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final List<Connector> opened = new ArrayList<>();

    enum Kind {
        JDK(c -> c.newBuilder().build()),
        NETTY(NettyUdpConnector::new),
        NETTY_NIO(c -> new NettyUdpConnector(c, false));

        final Function<UdpConnectorConfig, Connector> factory;

        Kind(Function<UdpConnectorConfig, Connector> factory) {
            this.factory = factory;
        }
    }

    static Stream<Arguments> kindsAndReceivers() {
        return Stream.of(Kind.values()).flatMap(k -> Stream.of(Arguments.of(k, 1), Arguments.of(k, 4)));
    }

    private Connector open(Kind kind, UdpConnectorConfig.Builder b) throws IOException {
        Connector c = kind.factory.apply(b.buildConfig());
        opened.add(c);
        c.start();
        return c;
    }

    private static UdpConnectorConfig.Builder loopback() {
        return UdpConnectorConfig.builder().bindAddress(LOOPBACK_ANY_PORT);
    }

    @AfterEach
    void stopAllAndCheckThreads() {
        opened.forEach(Connector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0} with {1} receiver thread(s)")
    @MethodSource("kindsAndReceivers")
    void echoesOverLoopback(Kind kind, int receivers) throws Exception {
        echo(kind, receivers, LOOPBACK_ANY_PORT);
    }

    @ParameterizedTest(name = "{0} on [::1]")
    @MethodSource("kindsAndReceiversIpv6")
    void echoesOverIpv6Loopback(Kind kind, int receivers) throws Exception {
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(v6);
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue(false, "no IPv6 loopback on this machine: " + e);
        }
        echo(kind, receivers, v6);
    }

    static Stream<Arguments> kindsAndReceiversIpv6() {
        return Stream.of(Kind.values()).map(k -> Arguments.of(k, 2));
    }

    private void echo(Kind kind, int receivers, InetSocketAddress bind) throws Exception {
        int n = 200;
        Connector server = open(kind, UdpConnectorConfig.builder().bindAddress(bind).receiverThreads(receivers));
        server.setRawDataReceiver(d -> server.send(RawData.outbound(d.bytes(), d.context(), null)));
        Connector client = open(kind, UdpConnectorConfig.builder().bindAddress(bind));
        Set<String> echoed = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(n);
        Set<InetSocketAddress> sources = ConcurrentHashMap.newKeySet();
        client.setRawDataReceiver(d -> {
            sources.add(d.context().peer());
            if (echoed.add(new String(d.bytes(), StandardCharsets.UTF_8))) {
                all.countDown();
            }
        });
        assertNotEquals(0, server.getAddress().getPort(), "port 0 resolved to the real port");
        EndpointContext to = EndpointContext.of(server.getAddress());
        Recorder clientSent = new Recorder(n);
        // a small window so that the test never overflows a default-sized socket buffer
        for (int i = 0; i < n; i++) {
            client.send(RawData.outbound(text("ping " + i), to, clientSent));
            if (i % 32 == 31) {
                int expected = i + 1;
                while (echoed.size() < expected - 16 && all.getCount() > 0) {
                    all.await(10, TimeUnit.MILLISECONDS); // latch wait, not a timer
                }
            }
        }
        assertTrue(all.await(TIMEOUT_S, TimeUnit.SECONDS), "sent " + n + " pings, echoed back " + echoed.size());
        assertEquals(Set.of(server.getAddress()), sources, "echoes come from the server's bound address");
        assertEquals(n, server.counters().received());
        // the echo may overtake the client's bookkeeping of its last send: wait for the callbacks
        assertTrue(clientSent.sent.await(TIMEOUT_S, TimeUnit.SECONDS), "all sends reported");
        assertEquals(n, client.counters().sent());
        assertEquals(0, server.counters().droppedQueueFull(), "server " + server.counters());
    }

    /**
     * JDK connector: an answer sent from the receive thread (the protocol stage running inline) is
     * written on that thread, without the outbound queue; a send from any other thread is written
     * by a sender thread. The thread that reports {@code onSent} shows which path was taken.
     */
    @Test
    void answerFromTheReceiveThreadIsWrittenDirectlyOthersGoThroughTheSender() throws Exception {
        Connector server = open(Kind.JDK, loopback());
        List<String> sentOn = new CopyOnWriteArrayList<>();
        CountDownLatch answered = new CountDownLatch(1);
        SendCallback recordThread = new SendCallback() {
            @Override
            public void onSent() {
                sentOn.add(Thread.currentThread().getName());
                answered.countDown();
            }

            @Override
            public void onFailed(Throwable cause) {
                sentOn.add("failed: " + cause);
                answered.countDown();
            }
        };
        server.setRawDataReceiver(d -> server.send(RawData.outbound(d.bytes(), d.context(), recordThread)));
        try (DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(LOOPBACK_ANY_PORT);
            peer.send(ByteBuffer.wrap(text("ping")), server.getAddress());
            ByteBuffer back = ByteBuffer.allocate(64);
            peer.receive(back);
            assertEquals("ping", new String(back.array(), 0, back.position(), StandardCharsets.UTF_8));
            assertTrue(answered.await(TIMEOUT_S, TimeUnit.SECONDS));
            assertTrue(sentOn.get(0).startsWith("stagecoach-udp-recv-"), "answer written on " + sentOn);

            Recorder fromTest = new Recorder();
            List<String> otherThread = new CopyOnWriteArrayList<>();
            server.send(RawData.outbound(text("from the test thread"), EndpointContext.of(
                    (InetSocketAddress) peer.getLocalAddress()), new SendCallback() {
                        @Override
                        public void onSent() {
                            otherThread.add(Thread.currentThread().getName());
                            fromTest.onSent();
                        }

                        @Override
                        public void onFailed(Throwable cause) {
                            fromTest.onFailed(cause);
                        }
                    }));
            assertTrue(fromTest.sent.await(TIMEOUT_S, TimeUnit.SECONDS), "failures " + fromTest.failures);
            assertTrue(otherThread.get(0).startsWith("stagecoach-udp-send-"), "written on " + otherThread);
        }
        assertEquals(2, server.counters().sent());
    }

    /**
     * {@link Connector#send(ByteBuffer, EndpointContext)} reads the buffer before it returns: the
     * sender overwrites its one buffer right after each send (from the receive thread, as the
     * inline protocol stage does, and from the test thread), and the peer still gets each datagram
     * as it was when sent.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aBufferSentIsReadBeforeSendReturnsAndMayBeReusedAtOnce(Kind kind) throws Exception {
        Connector server = open(kind, loopback());
        ByteBuffer reused = ByteBuffer.allocate(64);
        server.setRawDataReceiver(d -> {
            reused.clear();
            reused.put(text("re: ")).put(d.sharedBytes()).flip();
            server.send(reused, d.context());
            reused.clear();
            reused.put(text("overwritten after the send")).flip();
        });
        try (DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(LOOPBACK_ANY_PORT);
            ByteBuffer back = ByteBuffer.allocate(64);
            for (int i = 0; i < 3; i++) {
                peer.send(ByteBuffer.wrap(text("ping " + i)), server.getAddress());
                back.clear();
                peer.receive(back);
                assertEquals("re: ping " + i, new String(back.array(), 0, back.position(), StandardCharsets.UTF_8));
            }
            ByteBuffer fromTest = ByteBuffer.wrap(text("from the test thread"));
            server.send(fromTest, EndpointContext.of((InetSocketAddress) peer.getLocalAddress()));
            fromTest.clear();
            fromTest.put(text("OVERWRITTEN")).clear();
            back.clear();
            peer.receive(back);
            assertEquals("from the test thread", new String(back.array(), 0, back.position(), StandardCharsets.UTF_8));
        }
        assertEquals(0, server.counters().sendErrors());
    }

    /**
     * Both UDP connectors lend each datagram ({@link RawDataReceiver#receiveDatagram}): a receiver
     * that takes the lent form gets the datagram's bytes and its sender in the connector's buffer,
     * and {@code receiveData} is not called; successive datagrams come in the same buffer.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void datagramsAreLentInOneBufferToAReceiverThatTakesThem(Kind kind) throws Exception {
        Connector server = open(kind, loopback().receiverThreads(1));
        List<String> texts = new CopyOnWriteArrayList<>();
        Set<Object> buffers = ConcurrentHashMap.newKeySet();
        List<InetSocketAddress> senders = new CopyOnWriteArrayList<>();
        CountDownLatch two = new CountDownLatch(2);
        server.setRawDataReceiver(new RawDataReceiver() {
            @Override
            public void receiveData(RawData data) {
                texts.add("receiveData called");
                two.countDown();
            }

            @Override
            public void receiveDatagram(byte[] buffer, int offset, int length, EndpointContext sender, long nanos) {
                texts.add(new String(buffer, offset, length, StandardCharsets.UTF_8));
                buffers.add(buffer);
                senders.add(sender.peer());
                two.countDown();
            }
        });
        try (DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(LOOPBACK_ANY_PORT);
            peer.send(ByteBuffer.wrap(text("first, the longer one")), server.getAddress());
            peer.send(ByteBuffer.wrap(text("second")), server.getAddress());
            assertTrue(two.await(TIMEOUT_S, TimeUnit.SECONDS), "received " + texts);
            assertEquals(List.of("first, the longer one", "second"), texts);
            assertEquals(1, buffers.size(), "one buffer, lent again for each datagram");
            assertEquals(List.of(peer.getLocalAddress(), peer.getLocalAddress()), senders);
        }
        assertEquals(2, server.counters().received());
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void stopReleasesThePortLeavesNoThreadAndStartAgainWorks(Kind kind) throws Exception {
        Connector server = open(kind, loopback().receiverThreads(2));
        InetSocketAddress bound = server.getAddress();
        server.stop();
        ThreadLeakCheck.assertNoStagecoachThreads();
        try (DatagramChannel again = DatagramChannel.open()) {
            again.bind(bound); // would throw BindException if the port were still held
        }
        server.start();
        CountDownLatch got = new CountDownLatch(1);
        server.setRawDataReceiver(d -> got.countDown());
        try (DatagramChannel client = DatagramChannel.open()) {
            client.send(ByteBuffer.wrap(text("after restart")), server.getAddress());
            assertTrue(got.await(TIMEOUT_S, TimeUnit.SECONDS), "restarted connector received");
        }
    }

    static Stream<Kind> kinds() {
        return Stream.of(Kind.values());
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void oversizeInboundIsDroppedAndCounted(Kind kind) throws Exception {
        Connector server = open(kind, loopback().maxDatagramSize(100));
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        CountDownLatch got = new CountDownLatch(1);
        server.setRawDataReceiver(d -> {
            sizes.add(d.size());
            got.countDown();
        });
        try (DatagramChannel client = DatagramChannel.open()) {
            client.send(ByteBuffer.allocate(101), server.getAddress());
            client.send(ByteBuffer.allocate(100), server.getAddress());
            assertTrue(got.await(TIMEOUT_S, TimeUnit.SECONDS));
        }
        // one receiver thread: the 101-byte datagram was handled before the 100-byte one
        assertEquals(List.of(100), sizes, "sent 101 then 100 bytes, only 100 delivered");
        assertEquals(1, server.counters().droppedOversize());
        assertEquals(1, server.counters().received());
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void oversizeOutboundFailsTheCallbackAtOnce(Kind kind) throws Exception {
        Connector c = open(kind, loopback().maxDatagramSize(100));
        Recorder r = new Recorder();
        c.send(RawData.outbound(new byte[101], EndpointContext.of(c.getAddress()), r));
        assertEquals(List.of(Reason.OVERSIZE), r.failures, "101 bytes over a 100-byte limit");
        assertEquals(1, c.counters().droppedOversize());
        assertEquals(0, c.counters().sent());
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void fullOutboundQueueFailsExactlyTheOverflow(Kind kind) throws Exception {
        Connector c = open(kind, loopback().outboundQueueCapacity(1));
        EndpointContext to = EndpointContext.of(c.getAddress());
        CountDownLatch inFirstCallback = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // the first callback blocks the sending thread, so the queue cannot drain
        c.send(RawData.outbound(text("1"), to, new SendCallback() {
            @Override
            public void onSent() {
                inFirstCallback.countDown();
                try {
                    release.await(TIMEOUT_S, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void onFailed(Throwable cause) {
                inFirstCallback.countDown();
            }
        }));
        assertTrue(inFirstCallback.await(TIMEOUT_S, TimeUnit.SECONDS));
        Recorder second = new Recorder();
        Recorder third = new Recorder();
        c.send(RawData.outbound(text("2"), to, second));
        c.send(RawData.outbound(text("3"), to, third));
        assertEquals(List.of(Reason.QUEUE_FULL), third.failures, "capacity 1, one queued: the next fails");
        assertEquals(1, c.counters().droppedQueueFull());
        release.countDown();
        assertTrue(second.sent.await(TIMEOUT_S, TimeUnit.SECONDS), "the queued datagram went out");
        assertEquals(List.of(), second.failures);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void receiverExceptionDoesNotStopReception(Kind kind) throws Exception {
        Connector server = open(kind, loopback());
        CountDownLatch second = new CountDownLatch(1);
        server.setRawDataReceiver(d -> {
            if (d.size() == 1) {
                throw new IllegalStateException("test: receiver failure");
            }
            second.countDown();
        });
        try (DatagramChannel client = DatagramChannel.open()) {
            client.send(ByteBuffer.allocate(1), server.getAddress());
            client.send(ByteBuffer.allocate(2), server.getAddress());
            assertTrue(second.await(TIMEOUT_S, TimeUnit.SECONDS), "second datagram arrived after the throw");
        }
        assertEquals(2, server.counters().received());
    }

    /**
     * Supervision: a receiver that throws an Error loses that datagram only.
     * The JDK connector's receive thread dies and is replaced; Netty's event loop catches it in
     * the handler and carries on. Both count it in receiverRestarts.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void receiverErrorLosesOneDatagramIsCountedAndReceptionGoesOn(Kind kind) throws Exception {
        Connector server = open(kind, loopback());
        CountDownLatch second = new CountDownLatch(1);
        List<Integer> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
        server.setRawDataReceiver(d -> {
            if (d.size() == 1) {
                throw new Error("test: receiver dies");
            }
            delivered.add(d.size());
            second.countDown();
        });
        try (DatagramChannel client = DatagramChannel.open()) {
            client.send(ByteBuffer.allocate(1), server.getAddress());
            client.send(ByteBuffer.allocate(2), server.getAddress());
            assertTrue(second.await(TIMEOUT_S, TimeUnit.SECONDS), "second datagram arrived after the Error");
        }
        assertEquals(List.of(2), delivered, "sent a 1-byte (Error) and a 2-byte datagram, got");
        assertEquals(1, server.counters().receiverRestarts(), "one receiver Error survived");
        assertEquals(2, server.counters().received());
    }

    /**
     * JDK connector: 50 datagrams that each kill the receive thread, then one that is delivered.
     * Sent: 50 × 1 byte (Error) + 1 × 2 bytes; seen: 50 restarts, the 2-byte datagram delivered,
     * and one live receive thread (replacements do not pile up).
     */
    @Test
    void manyReceiverDeathsLeaveOneLiveReceiveThread() throws Exception {
        Connector server = open(Kind.JDK, loopback());
        CountDownLatch last = new CountDownLatch(1);
        server.setRawDataReceiver(d -> {
            if (d.size() == 1) {
                throw new Error("test: receiver dies");
            }
            last.countDown();
        });
        try (DatagramChannel client = DatagramChannel.open()) {
            for (int i = 0; i < 50; i++) {
                client.send(ByteBuffer.allocate(1), server.getAddress());
            }
            client.send(ByteBuffer.allocate(2), server.getAddress());
            assertTrue(last.await(TIMEOUT_S, TimeUnit.SECONDS), "the datagram after 50 deaths arrived");
        }
        assertEquals(50, server.counters().receiverRestarts());
        // The last dead threads may still be ending.
        Await.until(() -> liveReceiveThreads() <= 1, Duration.ofSeconds(TIMEOUT_S));
        assertEquals(1, liveReceiveThreads(), "live stagecoach-udp-recv threads");
    }

    /**
     * JDK connector: a receiver (an inline handler) that sets its thread's interrupt flag and then
     * answers. Sent: "one", "two"; seen: both echoed — the flag closed neither the send nor the
     * next receive, and the channel is still open.
     */
    @Test
    void receiverLeavingTheInterruptFlagSetDoesNotCloseTheChannel() throws Exception {
        Connector server = open(Kind.JDK, loopback());
        // The counter is bumped after the datagram is written, so the peer can read the echo
        // before the count moves: wait for both onSent callbacks (they follow the increment).
        Recorder echoes = new Recorder(2);
        server.setRawDataReceiver(d -> {
            Thread.currentThread().interrupt(); // e.g. catch (InterruptedException e) { interrupt(); }
            server.send(RawData.outbound(d.bytes(), d.context(), echoes));
        });
        try (java.net.DatagramSocket peer = new java.net.DatagramSocket(LOOPBACK_ANY_PORT)) {
            peer.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S)); // a closed server fails, not hangs
            for (String text : new String[] {"one", "two"}) {
                byte[] out = text(text);
                peer.send(new java.net.DatagramPacket(out, out.length, server.getAddress()));
                java.net.DatagramPacket back = new java.net.DatagramPacket(new byte[64], 64);
                peer.receive(back);
                assertEquals(text, new String(back.getData(), 0, back.getLength(), StandardCharsets.UTF_8));
            }
        }
        assertTrue(echoes.sent.await(TIMEOUT_S, TimeUnit.SECONDS), "failures " + echoes.failures);
        assertEquals(2, server.counters().sent());
        assertEquals(0, server.counters().sendErrors());
    }

    /**
     * JDK connector: {@code sendDirect} from a thread of the caller's own (here the test thread,
     * its interrupt flag set, as a pool's thread has while it shuts down) writes on that thread,
     * not a sender thread; the flag is set again afterwards and did not close the channel: a
     * second datagram follows. Sent: "one", "two"; seen: both, each reported sent on the test
     * thread.
     */
    @Test
    void sendDirectWritesOnTheCallersThreadAndKeepsItsInterruptFlag() throws Exception {
        UdpConnector server = (UdpConnector) open(Kind.JDK, loopback());
        String me = Thread.currentThread().getName();
        List<String> sentOn = new CopyOnWriteArrayList<>();
        SendCallback onThread = new SendCallback() {
            @Override
            public void onSent() {
                sentOn.add(Thread.currentThread().getName());
            }

            @Override
            public void onFailed(Throwable cause) {
                sentOn.add("failed: " + cause);
            }
        };
        try (java.net.DatagramSocket peer = new java.net.DatagramSocket(LOOPBACK_ANY_PORT)) {
            peer.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S)); // a closed channel fails, not hangs
            EndpointContext to = EndpointContext.of((InetSocketAddress) peer.getLocalSocketAddress());
            boolean flagAfter;
            Thread.currentThread().interrupt();
            try {
                server.sendDirect(RawData.outbound(text("one"), to, onThread));
            } finally {
                flagAfter = Thread.interrupted(); // and cleared for the rest of the test
            }
            assertTrue(flagAfter, "interrupt flag restored after the send");
            server.sendDirect(RawData.outbound(text("two"), to, onThread));
            for (String text : new String[] {"one", "two"}) {
                java.net.DatagramPacket back = new java.net.DatagramPacket(new byte[64], 64);
                peer.receive(back);
                assertEquals(text, new String(back.getData(), 0, back.getLength(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(List.of(me, me), sentOn);
        assertEquals(2, server.counters().sent());
        server.stop();
        Recorder afterStop = new Recorder();
        server.sendDirect(RawData.outbound(text("three"), EndpointContext.of(LOOPBACK_ANY_PORT), afterStop));
        assertEquals(List.of(Reason.STOPPED), afterStop.failures);
    }

    private static long liveReceiveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("stagecoach-udp-recv-")).count();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void sendWhileStoppedFailsAndDestroyedCannotStart(Kind kind) throws Exception {
        Connector c = open(kind, loopback());
        InetSocketAddress addr = c.getAddress();
        c.stop();
        Recorder r = new Recorder();
        c.send(RawData.outbound(text("x"), EndpointContext.of(addr), r));
        assertEquals(List.of(Reason.STOPPED), r.failures);
        assertEquals(1, c.counters().sendErrors());
        c.destroy();
        assertThrows(IllegalStateException.class, c::start);
        assertEquals("UDP", c.getProtocol());
    }

    @Test
    void builderRejectsBadValues() {
        UdpConnectorConfig.Builder b = UdpConnectorConfig.builder();
        assertThrows(IllegalArgumentException.class, () -> b.receiverThreads(0));
        assertThrows(IllegalArgumentException.class, () -> b.senderThreads(-1));
        assertThrows(IllegalArgumentException.class, () -> b.outboundQueueCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxDatagramSize(65_508));
        assertThrows(IllegalArgumentException.class, () -> b.receiveBufferSize(-1));
        assertThrows(IllegalArgumentException.class,
                () -> b.bindAddress(InetSocketAddress.createUnresolved("example.invalid", 5683)));
        assertThrows(NullPointerException.class, () -> b.clock(null));
        UdpConnectorConfig defaults = b.buildConfig();
        assertEquals(5683, defaults.bindAddress().getPort());
        assertEquals(4 * 1024 * 1024, defaults.receiveBufferSize());
        assertEquals(1, defaults.receiverThreads());
    }

    @Test
    void rawDataKeepsBytesPrivate() {
        byte[] b = text("abc");
        RawData d = RawData.inbound(b, EndpointContext.of(LOOPBACK_ANY_PORT), 42);
        d.bytes()[0] = 'X';
        assertArrayEquals(text("abc"), d.bytes(), "a caller modifying its copy does not change the datagram");
        assertTrue(d.buffer().isReadOnly());
        assertEquals(42, d.receiveNanos());
    }

    static final class Recorder implements SendCallback {
        final List<Reason> failures = new CopyOnWriteArrayList<>();
        final CountDownLatch sent;

        Recorder() {
            this(1);
        }

        Recorder(int expectedSends) {
            sent = new CountDownLatch(expectedSends);
        }

        @Override
        public void onSent() {
            sent.countDown();
        }

        @Override
        public void onFailed(Throwable cause) {
            failures.add(cause instanceof SendFailedException s ? s.reason() : Reason.IO_ERROR);
        }
    }
}
