package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * Readiness probe for a CoAP server peer: sends CoAP pings (an Empty CON, RFC 7252 §4.3) until
 * one is answered by an RST with the same Message ID. The four bytes are built by hand so that
 * the probe does not depend on the codec under test.
 */
public final class CoapPing {

    /** How long one ping waits for its RST before the next one is sent. */
    private static final int PROBE_TIMEOUT_MS = 100;

    private CoapPing() {
    }

    /**
     * Returns once {@code server} answers a ping; fails the test, with the peer's output, if
     * {@code peer} exits first or {@code deadline} passes.
     */
    public static void awaitReady(InetSocketAddress server, PeerProcess peer, Duration deadline) throws IOException {
        long end = System.nanoTime() + deadline.toNanos();
        int mid = 0x5A00;
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            socket.setSoTimeout(PROBE_TIMEOUT_MS);
            byte[] in = new byte[64];
            while (System.nanoTime() < end) {
                if (!peer.isAlive()) {
                    fail("peer exited before answering a CoAP ping on " + server + ": " + peer.describe());
                }
                mid = (mid + 1) & 0xFFFF;
                // Ver 1, T=CON(0), TKL 0; Code 0.00; Message ID.
                byte[] ping = {0x40, 0x00, (byte) (mid >> 8), (byte) mid};
                socket.send(new DatagramPacket(ping, ping.length, server));
                if (awaitRst(socket, in, mid)) {
                    return;
                }
            }
        }
        fail("no RST to a CoAP ping from " + server + " within " + deadline + ": " + peer.describe());
    }

    private static boolean awaitRst(DatagramSocket socket, byte[] in, int mid) throws IOException {
        DatagramPacket reply = new DatagramPacket(in, in.length);
        try {
            socket.receive(reply);
        } catch (SocketTimeoutException notYet) {
            // Port not bound yet (ICMP is not reported on an unconnected socket): ping again.
            return false;
        }
        boolean rst = reply.getLength() >= 4 && (in[0] & 0xF0) == 0x70; // Ver 1, T=RST(3)
        int replyMid = ((in[2] & 0xFF) << 8) | (in[3] & 0xFF);
        return rst && replyMid == mid;
    }
}
