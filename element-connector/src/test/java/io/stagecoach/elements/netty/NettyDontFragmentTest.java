package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code udp.dont-fragment}: the epoll channels hold IP_PMTUDISC_PROBE by default (atomic datagrams,
 * RFC 6864 §4.1) and the kernel's own setting when it is off; answers still flow with it on.
 */
class NettyDontFragmentTest {

    private final List<NettyUdpConnector> opened = new ArrayList<>();

    @AfterEach
    void destroyAll() {
        opened.forEach(NettyUdpConnector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private NettyUdpConnector start(UdpConnectorConfig.Builder b, InetAddress bind, int channels) throws Exception {
        NettyUdpConnector c = new NettyUdpConnector(
                b.bindAddress(new InetSocketAddress(bind, 0)).nettyChannels(channels).buildConfig());
        opened.add(c);
        c.start();
        return c;
    }

    @Test
    void everyChannelSendsAtomicDatagramsByDefault() throws Exception {
        NettyUdpConnector c = start(UdpConnectorConfig.builder(), InetAddress.getByName("::"), 2);
        List<Integer> expected = NettyUdpConnector.isEpollAvailable()
                ? List.of(NettyUdpConnector.IP_PMTUDISC_PROBE, NettyUdpConnector.IP_PMTUDISC_PROBE)
                : Arrays.asList((Integer) null); // NIO fallback: one channel, the option unknown to it
        assertEquals(expected, c.channelOption(NettyUdpConnector.IP_MTU_DISCOVER));
    }

    @Test
    void offLeavesTheKernelDefault() throws Exception {
        NettyUdpConnector c = start(UdpConnectorConfig.builder().dontFragment(false), InetAddress.getLoopbackAddress(), 1);
        assertNotEquals(NettyUdpConnector.IP_PMTUDISC_PROBE, c.channelOption(NettyUdpConnector.IP_MTU_DISCOVER).get(0));
    }

    @Test
    @Timeout(30)
    void anAnswerFromTheLoopStillArrives() throws Exception {
        NettyUdpConnector c = start(UdpConnectorConfig.builder(), InetAddress.getLoopbackAddress(), 1);
        // echo from the event loop, the path the default server takes (reused packets, one flush per batch)
        c.setRawDataReceiver(data -> c.send(ByteBuffer.wrap(data.bytes()), data.context()));
        try (DatagramChannel client = DatagramChannel.open()) {
            client.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            byte[] hello = "atomic".getBytes(StandardCharsets.US_ASCII);
            client.send(ByteBuffer.wrap(hello), new InetSocketAddress(InetAddress.getLoopbackAddress(), c.getAddress().getPort()));
            ByteBuffer in = ByteBuffer.allocate(64);
            client.receive(in);
            in.flip();
            byte[] got = new byte[in.remaining()];
            in.get(got);
            assertArrayEquals(hello, got);
        }
    }
}
