package io.stagecoach.core.fuzz;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link EndpointFuzzTest} reads its bytes: a sequence of records
 * {@code [control][length hi][length lo][datagram…]}. The control byte's low two bits pick one of
 * four peers, bits 2–4 how far the clock moves after the datagram ({@link #STEPS}). A short last
 * record takes what is left; at most {@link #MAX_RECORDS} records are read.
 */
record FuzzInput(List<Datagram> datagrams) {

    static final int MAX_RECORDS = 64;
    static final Duration[] STEPS = {
        Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1),
        Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(200)};
    static final InetSocketAddress[] PEERS = {
        new InetSocketAddress("10.0.0.9", 40001), new InetSocketAddress("10.0.0.9", 40002),
        new InetSocketAddress("10.0.0.10", 5683), new InetSocketAddress("fd00::1", 5683)};

    /** One datagram, who sends it and how long to wait after it. */
    record Datagram(byte[] bytes, InetSocketAddress peer, Duration then) {
    }

    static FuzzInput decode(byte[] in) {
        List<Datagram> out = new ArrayList<>();
        int pos = 0;
        while (pos < in.length && out.size() < MAX_RECORDS) {
            int control = in[pos++] & 0xFF;
            int length = 0;
            for (int i = 0; i < 2 && pos < in.length; i++) {
                length = length << 8 | (in[pos++] & 0xFF);
            }
            length = Math.min(length, in.length - pos);
            byte[] bytes = new byte[length];
            System.arraycopy(in, pos, bytes, 0, length);
            pos += length;
            out.add(new Datagram(bytes, PEERS[control & 3], STEPS[(control >>> 2) & 7]));
        }
        return new FuzzInput(out);
    }

    /** Encodes records for seeds: {@code peer} 0–3, {@code step} 0–7. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Writer add(int peer, int step, byte[] datagram) {
            out.write(peer | step << 2);
            out.write(datagram.length >>> 8);
            out.write(datagram.length);
            out.writeBytes(datagram);
            return this;
        }

        byte[] toBytes() {
            return out.toByteArray();
        }
    }
}
