package io.stagecoach.bench.cluster;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;

/**
 * Sends one datagram per argument {@code SOURCE_PORT:HEX} to {@code HOST PORT}, each from its own
 * socket bound to that source port; run in the clients' namespace by {@link ClusterInteropTest}
 * to see where the balancer routes a payload.
 */
public final class DatagramSender {

    private DatagramSender() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress host = InetAddress.getByName(args[0]);
        int port = Integer.parseInt(args[1]);
        for (int i = 2; i < args.length; i++) {
            String[] spec = args[i].split(":", 2);
            byte[] payload = HexFormat.of().parseHex(spec[1]);
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(Integer.parseInt(spec[0])))) {
                s.send(new DatagramPacket(payload, payload.length, host, port));
            }
        }
        System.out.println("sent " + (args.length - 2));
    }
}
