package io.stagecoach.bench.scenario;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.function.BooleanSupplier;

/**
 * CoAP ping (RFC 7252 §4.3): an empty CON, answered by a Reset with its Message ID, from a fresh
 * socket on 127.0.0.1. Whether a server is up and answering, without asking it for anything.
 */
final class CoapPing {

    private static final int TRY_MILLIS = 250;

    private CoapPing() {
    }

    /**
     * Pings {@code server} every 250 ms until a Reset with the ping's MID comes back, the time is
     * up, or {@code keepTrying} says to stop (its process ended).
     *
     * @return whether the Reset came
     */
    static boolean answered(InetSocketAddress server, long timeoutMillis, BooleanSupplier keepTrying)
            throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setSoTimeout(TRY_MILLIS);
            DatagramPacket in = new DatagramPacket(new byte[1500], 1500);
            for (int mid = 1; System.nanoTime() < deadline && keepTrying.getAsBoolean(); mid++) {
                byte[] ping = {0x40, 0x00, (byte) (mid >>> 8), (byte) mid};
                s.send(new DatagramPacket(ping, ping.length, server));
                long tryEnd = System.nanoTime() + TRY_MILLIS * 1_000_000L;
                while (System.nanoTime() < tryEnd) {
                    try {
                        s.receive(in);
                    } catch (SocketTimeoutException e) {
                        break;
                    }
                    if (isReset(in.getData(), in.getLength(), mid)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Version 1, type RST, code 0.00, the given MID. */
    static boolean isReset(byte[] d, int length, int mid) {
        return length >= 4 && (d[0] & 0xF0) == 0x70 && d[1] == 0
                && (((d[2] & 0xFF) << 8) | (d[3] & 0xFF)) == (mid & 0xFFFF);
    }
}
