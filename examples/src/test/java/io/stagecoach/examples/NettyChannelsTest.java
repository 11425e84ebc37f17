package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * {@code udp.netty-channels} reaches the Netty connector the server builder creates: with native
 * epoll it binds that many SO_REUSEPORT channels on one port, and each serves.
 */
class NettyChannelsTest {

    @Test
    void nettyChannelsKeyBindsThatManyReusePortChannels() {
        CoapServer server = CoapServer.builder()
                .config(CoapConfig.builder().set(UdpConfig.NETTY_CHANNELS, 3).build())
                .netty(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .add(CoapResource.named("x").onGet(ex -> ex.respond("y")))
                .start();
        try {
            NettyUdpConnector netty = (NettyUdpConnector) server.endpoints().get(0).connector();
            assertEquals(NettyUdpConnector.isEpollAvailable() ? 3 : 1, netty.channelCount(),
                    "epoll: udp.netty-channels channels; NIO: one");
            for (int i = 0; i < 5; i++) {
                try (CoapClient c = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/x").build()) {
                    assertEquals("y", c.get().payloadText(), "a client on a fresh port, hashed to some channel");
                }
            }
        } finally {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }
}
