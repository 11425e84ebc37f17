package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NettyUdpConnector#sendDirect}: on epoll a datagram from a thread that is not an event
 * loop is written on that thread (sent and counted when the call returns, with no hand-off to the
 * loop), intact from several threads at once; on NIO, oversize and stopped it behaves as
 * {@code send}.
 */
class NettySendDirectTest {

    private final List<NettyUdpConnector> opened = new ArrayList<>();

    @AfterEach
    void destroyAll() {
        opened.forEach(NettyUdpConnector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private NettyUdpConnector start(boolean allowEpoll) throws Exception {
        NettyUdpConnector c = new NettyUdpConnector(UdpConnectorConfig.builder()
                .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).nettyChannels(1)
                .maxDatagramSize(1500).buildConfig(), allowEpoll);
        opened.add(c);
        c.start();
        return c;
    }

    private static DatagramChannel peer() throws Exception {
        DatagramChannel ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return ch;
    }

    private static String receive(DatagramChannel ch) throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        ch.receive(buf); // blocking: bounded by the test's timeout
        buf.flip();
        return StandardCharsets.US_ASCII.decode(buf).toString();
    }

    private static RawData datagram(String text, InetSocketAddress to, SendCallback callback) {
        return RawData.outbound(text.getBytes(StandardCharsets.US_ASCII), EndpointContext.of(to), callback);
    }

    @Test
    @Timeout(30)
    void onEpollTheCallersThreadWritesAndCountsBeforeReturning() throws Exception {
        assumeTrue(NettyUdpConnector.isEpollAvailable(), "epoll (Linux) only");
        NettyUdpConnector server = start(true);
        try (DatagramChannel client = peer()) {
            CompletableFuture<Thread> sentOn = new CompletableFuture<>();
            server.sendDirect(datagram("flight", (InetSocketAddress) client.getLocalAddress(), new SendCallback() {
                @Override
                public void onSent() {
                    sentOn.complete(Thread.currentThread());
                }

                @Override
                public void onFailed(Throwable cause) {
                    sentOn.completeExceptionally(cause);
                }
            }));
            // the loop would count it only after its own write: here it is done when the call returns
            assertEquals(1, server.counters().sent());
            assertTrue(sentOn.isDone(), "callback before return");
            assertEquals(Thread.currentThread(), sentOn.get());
            assertEquals("flight", receive(client));
        }
    }

    @Test
    @Timeout(30)
    void datagramsFromSeveralThreadsArriveWholeAndCounted() throws Exception {
        assumeTrue(NettyUdpConnector.isEpollAvailable(), "epoll (Linux) only");
        NettyUdpConnector server = start(true);
        int threads = 4;
        int each = 25; // 100 datagrams of ~300 bytes: well within the client's receive buffer
        String pad = "x".repeat(300);
        try (DatagramChannel client = peer()) {
            InetSocketAddress to = (InetSocketAddress) client.getLocalAddress();
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread s = new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        server.sendDirect(datagram("t" + id + " " + i + " " + pad, to, null));
                    }
                });
                senders.add(s);
                s.start();
            }
            for (Thread s : senders) {
                s.join();
            }
            assertEquals(threads * each, server.counters().sent(), "counted on the senders' threads");
            Set<String> got = new HashSet<>();
            while (got.size() < threads * each) {
                String d = receive(client);
                assertTrue(d.endsWith(" " + pad), "whole datagram");
                got.add(d.substring(0, d.length() - pad.length() - 1));
            }
        }
        assertEquals(0, server.counters().sendErrors());
    }

    @Test
    @Timeout(30)
    void onNioItIsAnOrdinarySend() throws Exception {
        NettyUdpConnector server = start(false);
        try (DatagramChannel client = peer()) {
            server.sendDirect(datagram("nio", (InetSocketAddress) client.getLocalAddress(), null));
            assertEquals("nio", receive(client));
        }
    }

    @Test
    void oversizeAndStoppedFailAsForSend() throws Exception {
        NettyUdpConnector server = start(true);
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        CompletableFuture<Throwable> oversize = new CompletableFuture<>();
        server.sendDirect(RawData.outbound(new byte[1501], EndpointContext.of(to), failure(oversize)));
        assertEquals(SendFailedException.Reason.OVERSIZE,
                assertInstanceOf(SendFailedException.class, oversize.getNow(null)).reason());
        server.stop();
        CompletableFuture<Throwable> stopped = new CompletableFuture<>();
        server.sendDirect(datagram("late", to, failure(stopped)));
        assertEquals(SendFailedException.Reason.STOPPED,
                assertInstanceOf(SendFailedException.class, stopped.getNow(null)).reason());
    }

    private static SendCallback failure(CompletableFuture<Throwable> into) {
        return new SendCallback() {
            @Override
            public void onSent() {
                into.complete(null);
            }

            @Override
            public void onFailed(Throwable cause) {
                into.complete(cause);
            }
        };
    }
}
