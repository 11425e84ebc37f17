package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Netty connector's batched system calls: a burst that fills several {@code recvmmsg} reads
 * is answered in full from the event loop, every answer (written with the void promise, confirmed
 * after the batch's flush) is counted as sent and gives its place in the outbound bound back.
 */
class NettyBatchingTest {

    private final List<NettyUdpConnector> opened = new ArrayList<>();

    @AfterEach
    void destroyAll() {
        opened.forEach(NettyUdpConnector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private NettyUdpConnector start(UdpConnectorConfig.Builder b, boolean allowEpoll) throws Exception {
        NettyUdpConnector c = new NettyUdpConnector(
                b.bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).nettyChannels(1).buildConfig(),
                allowEpoll);
        opened.add(c);
        c.start();
        return c;
    }

    @Test
    void batchingIsOnWithEpollAndOffWithOneDatagramPerCallOrNio() throws Exception {
        assertEquals(NettyUdpConnector.isEpollAvailable(), start(UdpConnectorConfig.builder(), true).isBatched());
        assertFalse(start(UdpConnectorConfig.builder().batchSize(1), true).isBatched());
        assertFalse(start(UdpConnectorConfig.builder(), false).isBatched());
    }

    @Test
    @Timeout(30) // a lost datagram would otherwise block the receive loop forever
    void aBurstOfSeveralBatchesIsAnsweredCountedAndReleasesTheQueueBound() throws Exception {
        // capacity = one batch: an answer held past its batch's flush would make later ones fail
        NettyUdpConnector server = start(UdpConnectorConfig.builder().batchSize(16).outboundQueueCapacity(16), true);
        CountDownLatch synced = new CountDownLatch(1);
        server.setRawDataReceiver(d -> {
            if (isSync(d)) {
                synced.countDown();
            } else {
                server.send(RawData.outbound(d.bytes(), d.context(), null));
            }
        });
        int n = 200;
        try (DatagramChannel client = DatagramChannel.open()) {
            // room for every answer even before the first is read (the kernel doubles the value, caps it at rmem_max)
            client.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
            client.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            for (int i = 0; i < n; i++) { // no pause: the server's socket holds many datagrams per read
                client.send(ByteBuffer.wrap(("ping " + i).getBytes(StandardCharsets.US_ASCII)), server.getAddress());
            }
            Set<String> answers = new HashSet<>();
            ByteBuffer buf = ByteBuffer.allocate(64);
            while (answers.size() < n) { // blocking receive: ends when all came, else the test's timeout
                buf.clear();
                client.receive(buf);
                buf.flip();
                answers.add(StandardCharsets.US_ASCII.decode(buf).toString());
            }
            assertTrue(answers.contains("ping 0") && answers.contains("ping " + (n - 1)));
            sync(client, server, synced);
        }
        assertEquals(n + 1, server.counters().received());
        assertEquals(0, server.counters().droppedQueueFull(), server.counters().toString());
        assertEquals(n, server.counters().sent(), "answers confirmed after their batch's flush");
        assertEquals(0, server.counters().sendErrors());
    }

    /**
     * The same burst answered with {@code send(ByteBuffer)} from the event loop: the answers come
     * from the loop's reused packets (16 per batch, refilled batch after batch, each filled from
     * one buffer the receiver overwrites after every send), every answer arrives as it was sent,
     * and all are counted and give their place back.
     */
    @Test
    @Timeout(30)
    void aBurstAnsweredFromOneReusedBufferArrivesIntactAndCounted() throws Exception {
        NettyUdpConnector server = start(UdpConnectorConfig.builder().batchSize(16).outboundQueueCapacity(16), true);
        ByteBuffer reused = ByteBuffer.allocate(64);
        CountDownLatch synced = new CountDownLatch(1);
        server.setRawDataReceiver(d -> {
            if (isSync(d)) {
                synced.countDown();
                return;
            }
            reused.clear();
            reused.put("re ".getBytes(StandardCharsets.US_ASCII)).put(d.sharedBytes()).flip();
            server.send(reused, d.context());
            reused.clear();
            reused.put("overwritten".getBytes(StandardCharsets.US_ASCII)).flip();
        });
        int n = 200;
        try (DatagramChannel client = DatagramChannel.open()) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
            client.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            for (int i = 0; i < n; i++) {
                client.send(ByteBuffer.wrap(("ping " + i).getBytes(StandardCharsets.US_ASCII)), server.getAddress());
            }
            Set<String> answers = new HashSet<>();
            ByteBuffer buf = ByteBuffer.allocate(64);
            while (answers.size() < n) {
                buf.clear();
                client.receive(buf);
                buf.flip();
                String answer = StandardCharsets.US_ASCII.decode(buf).toString();
                assertTrue(answer.startsWith("re ping "), answer);
                answers.add(answer);
            }
            sync(client, server, synced);
        }
        assertEquals(n + 1, server.counters().received());
        assertEquals(0, server.counters().droppedQueueFull(), server.counters().toString());
        assertEquals(n, server.counters().sent(), "answers confirmed after their batch's flush");
        assertEquals(0, server.counters().sendErrors());
    }

    /**
     * The client receiving an answer does not mean the loop has counted it yet: the count follows
     * the batch's flush on the event loop. A later datagram is delivered on the same loop only
     * after that, so the test waits until the receiver has seen one.
     */
    private static void sync(DatagramChannel client, NettyUdpConnector server, CountDownLatch synced) throws Exception {
        client.send(ByteBuffer.wrap(SYNC), server.getAddress());
        synced.await(); // bounded by the test's timeout
    }

    private static final byte[] SYNC = "sync".getBytes(StandardCharsets.US_ASCII);

    private static boolean isSync(RawData d) {
        return Arrays.equals(SYNC, d.sharedBytes());
    }
}
