package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several SO_REUSEPORT channels still own their port alone: a second connector (or any socket)
 * on a port in use fails to start as with one socket, instead of silently sharing the port and
 * taking part of the first one's traffic.
 */
class NettyPortInUseTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private final List<NettyUdpConnector> opened = new ArrayList<>();

    @AfterEach
    void destroyAll() {
        opened.forEach(NettyUdpConnector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private NettyUdpConnector connector(InetSocketAddress bind) {
        NettyUdpConnector c = new NettyUdpConnector(UdpConnectorConfig.builder().bindAddress(bind).nettyChannels(2).buildConfig());
        opened.add(c);
        return c;
    }

    @Test
    @Timeout(30)
    void aSecondConnectorOnAPortInUseFailsToStartAndTheFirstKeepsServing() throws Exception {
        NettyUdpConnector first = connector(ANY_LOOPBACK);
        first.start();
        first.setRawDataReceiver(d -> first.send(RawData.outbound(d.bytes(), d.context(), null)));
        InetSocketAddress taken = first.getAddress();
        assertEquals(NettyUdpConnector.isEpollAvailable() ? 2 : 1, first.channelCount());

        NettyUdpConnector second = connector(taken);
        assertThrows(IOException.class, second::start, "bind " + taken + " while the first holds it");
        assertEquals(0, second.channelCount());

        try (DatagramChannel client = DatagramChannel.open()) { // every answer still comes from the first
            client.bind(ANY_LOOPBACK);
            for (int i = 0; i < 20; i++) {
                client.send(ByteBuffer.wrap(new byte[] {(byte) i}), taken);
                ByteBuffer in = ByteBuffer.allocate(8);
                client.receive(in);
                assertEquals(1, in.flip().remaining());
                assertEquals((byte) i, in.get());
            }
        }
        assertEquals(20, first.counters().received());
    }

    @Test
    void aPortHeldByAPlainSocketIsInUse() throws Exception {
        try (DatagramChannel holder = DatagramChannel.open()) {
            holder.bind(ANY_LOOPBACK);
            InetSocketAddress held = (InetSocketAddress) holder.getLocalAddress();
            NettyUdpConnector c = connector(held);
            assertThrows(IOException.class, c::start, "bind " + held + " held by a plain socket");
        }
    }

    @Test
    void portZeroBindsEveryChannelToOneFreePort() throws Exception {
        NettyUdpConnector c = connector(ANY_LOOPBACK);
        c.start();
        assertTrue(c.getAddress().getPort() > 0, c.getAddress().toString());
        try (DatagramChannel plain = DatagramChannel.open()) {
            assertThrows(IOException.class, () -> plain.bind(c.getAddress()), "the channels hold " + c.getAddress());
        }
    }
}
