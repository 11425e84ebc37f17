package io.stagecoach.core.interop;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Free ports on 127.0.0.1 for peers that bind their own socket. The port is free when returned and
 * may be taken by someone else before the peer binds it; tests on one machine rarely race.
 */
public final class LoopbackPorts {

    private static final int ATTEMPTS = 20;

    private LoopbackPorts() {
    }

    /**
     * A port free for UDP and for TCP on loopback; both, because coap-server-notls {@code -p}
     * binds the port for UDP and TCP.
     */
    public static int freeUdpAndTcpPort() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int i = 0; i < ATTEMPTS; i++) {
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(loopback, 0))) {
                int port = udp.getLocalPort();
                try (ServerSocket tcp = new ServerSocket()) {
                    tcp.bind(new InetSocketAddress(loopback, port));
                    return port;
                } catch (IOException takenForTcp) {
                    // try another ephemeral port
                }
            }
        }
        throw new IOException("no port free for both UDP and TCP on loopback after " + ATTEMPTS + " attempts");
    }
}
