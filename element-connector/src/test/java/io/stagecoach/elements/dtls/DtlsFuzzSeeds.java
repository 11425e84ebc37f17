package io.stagecoach.elements.dtls;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Seed inputs of the DTLS Jazzer targets, built by hand from the record layouts of RFC 6347 §4.1
 * and RFC 9146 §4 (no captured traffic: every byte is explained here), and the input format of
 * {@link DtlsServerFuzzTest}: records {@code [control][length hi][length lo][datagram…]}, the
 * control byte's low two bits picking one of four sources, bits 2–3 the clock step after it.
 */
final class DtlsFuzzSeeds {

    static final InetSocketAddress[] SOURCES = {
        new InetSocketAddress("198.51.100.7", 40000), new InetSocketAddress("198.51.100.7", 40001),
        new InetSocketAddress("203.0.113.9", 5684), new InetSocketAddress("2001:db8::1", 40000)};
    static final int MAX_DATAGRAMS = 32;

    /** One datagram, its source and the clock step after it. */
    record Datagram(byte[] bytes, InetSocketAddress from, Duration then) {
    }

    private DtlsFuzzSeeds() {
    }

    static List<Datagram> decode(byte[] in) {
        List<Datagram> out = new ArrayList<>();
        int pos = 0;
        while (pos < in.length && out.size() < MAX_DATAGRAMS) {
            int control = in[pos++] & 0xFF;
            int length = 0;
            for (int i = 0; i < 2 && pos < in.length; i++) {
                length = length << 8 | (in[pos++] & 0xFF);
            }
            length = Math.min(length, in.length - pos);
            byte[] bytes = new byte[length];
            System.arraycopy(in, pos, bytes, 0, length);
            pos += length;
            out.add(new Datagram(bytes, SOURCES[control & 3], DtlsServerFuzzTest.STEPS[(control >>> 2) & 3]));
        }
        return out;
    }

    /** A record: type, DTLS 1.2, epoch, sequence, [cid], length, fragment. */
    static byte[] record(int type, int epoch, long seq, byte[] cid, byte[] fragment) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(type);
        out.write(254);
        out.write(253);
        out.write(epoch >> 8);
        out.write(epoch);
        for (int k = 5; k >= 0; k--) {
            out.write((int) (seq >>> (8 * k)));
        }
        if (cid != null) {
            out.writeBytes(cid);
        }
        out.write(fragment.length >> 8);
        out.write(fragment.length);
        out.writeBytes(fragment);
        return out.toByteArray();
    }

    /** A whole handshake message as one fragment: type, length, message_seq, offset 0, length, body. */
    static byte[] handshake(int type, int messageSeq, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(type);
        uint24(out, body.length);
        out.write(messageSeq >> 8);
        out.write(messageSeq);
        uint24(out, 0);
        uint24(out, body.length);
        out.writeBytes(body);
        return out.toByteArray();
    }

    private static void uint24(ByteArrayOutputStream out, int v) {
        out.write(v >> 16);
        out.write(v >> 8);
        out.write(v);
    }

    /** A PSK ClientKeyExchange (RFC 4279 §2): the identity with its 2-byte length. */
    static byte[] clientKeyExchange(String identity) {
        byte[] id = identity.getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[2 + id.length];
        body[0] = (byte) (id.length >> 8);
        body[1] = (byte) id.length;
        System.arraycopy(id, 0, body, 2, id.length);
        return handshake(16, 2, body);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] prefixed(int first, byte[] rest) {
        return concat(new byte[] {(byte) first}, rest);
    }

    private static final byte[] CID = {1, 2, 3, 4, 5, 6};
    private static final byte[] SEALED = new byte[24]; // an AEAD fragment's size: nonce 8 + tag 16

    /** {@code DtlsRecordFuzzTest}: the connection ID length, then one datagram. */
    static Map<String, byte[]> records() {
        Map<String, byte[]> m = new TreeMap<>();
        m.put("seed-client-hello", prefixed(6, ClientHellos.minimal(1)));
        m.put("seed-cid-record", prefixed(6, record(25, 1, 7, CID, SEALED)));
        m.put("seed-cid-record-unknown-length", prefixed(0, record(25, 1, 7, CID, SEALED)));
        m.put("seed-client-key-exchange", prefixed(6, record(22, 0, 2, null, clientKeyExchange("client1"))));
        m.put("seed-client-flight", prefixed(6, concat(record(22, 0, 2, null, clientKeyExchange("client1")),
                record(20, 0, 3, null, new byte[] {1}), record(22, 1, 0, null, SEALED))));
        m.put("seed-two-fragments", prefixed(0, record(22, 0, 1, null, concat(handshake(1, 0, new byte[4]),
                handshake(16, 1, new byte[3])))));
        m.put("seed-alert", prefixed(0, record(21, 1, 9, null, SEALED)));
        m.put("seed-empty-application-data", prefixed(0, record(23, 1, 9, null, new byte[0])));
        return m;
    }

    /** {@code HandshakeFragmentFuzzTest}: offset, end cut, then the bytes. */
    static Map<String, byte[]> fragments() {
        Map<String, byte[]> m = new TreeMap<>();
        m.put("seed-client-key-exchange", concat(new byte[] {0, 0}, clientKeyExchange("client1")));
        m.put("seed-client-hello", concat(new byte[] {0, 0}, handshake(1, 0, new byte[40])));
        byte[] tail = handshake(11, 1, new byte[10]);
        tail[8] = 100; // fragment offset 100 of a message announced as 10 bytes long: inconsistent
        m.put("seed-fragment-beyond-message", concat(new byte[] {0, 0}, tail));
        byte[] huge = handshake(1, 0, new byte[8]);
        huge[1] = (byte) 0xFF; // announces a 16 MiB message (the allocation the connector screens)
        m.put("seed-announces-16-mib", concat(new byte[] {0, 0}, huge));
        return m;
    }

    /** {@code DtlsServerFuzzTest}: datagrams from the four sources. */
    static Map<String, byte[]> datagrams() {
        Map<String, byte[]> m = new TreeMap<>();
        m.put("seed-hello", new Writer().add(0, 0, ClientHellos.minimal(1)).toBytes());
        m.put("seed-hello-then-flight", new Writer().add(0, 0, ClientHellos.minimal(1))
                .add(0, 1, concat(record(22, 0, 2, null, clientKeyExchange("client1")),
                        record(20, 0, 3, null, new byte[] {1}), record(22, 1, 0, null, SEALED))).toBytes());
        m.put("seed-cid-records", new Writer().add(1, 0, record(25, 1, 7, CID, SEALED))
                .add(2, 2, record(25, 1, 8, CID, new byte[3])).toBytes());
        m.put("seed-hellos-from-everywhere", new Writer().add(0, 0, ClientHellos.minimal(1))
                .add(1, 0, ClientHellos.minimal(2)).add(2, 0, ClientHellos.minimal(3)).add(3, 3, ClientHellos.minimal(4))
                .toBytes());
        m.put("seed-application-data-without-session", new Writer().add(3, 0, record(23, 1, 1, null, SEALED)).toBytes());
        return m;
    }

    /** Writes {@link DtlsServerFuzzTest} inputs. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Writer add(int source, int step, byte[] datagram) {
            out.write(source | step << 2);
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
