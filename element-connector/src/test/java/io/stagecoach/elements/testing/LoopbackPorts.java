package io.stagecoach.elements.testing;

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

    /**
     * A port P with P and P + 1 free for UDP and TCP on loopback: libcoap's servers bind
     * {@code -p P} for coap and coap+tcp and P + 1 for coaps and coaps+tcp. Checking P alone is
     * not enough: P + 1 may be another process's ephemeral port, and the peer then runs without
     * its secure listener.
     */
    public static int freeUdpAndTcpPortPair() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < ATTEMPTS * 2; attempt++) {
            int p;
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(loopback, 0))) {
                p = s.getLocalPort();
            }
            if (p < 65535 && free(p, loopback) && free(p + 1, loopback)) {
                return p;
            }
        }
        throw new IOException("no pair of free loopback ports after " + ATTEMPTS * 2 + " attempts");
    }

    private static boolean free(int port, InetAddress address) {
        try (DatagramSocket u = new DatagramSocket(new InetSocketAddress(address, port));
                ServerSocket t = new ServerSocket(port, 1, address)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
