package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Plain CoAP clients that watch which node answers them, for the cluster's failure measurements
 * (docs/cluster.md). Runs in the clients' namespace as a program of its own:
 *
 * <pre>
 * FailoverProbe --target 10.200.0.1:5683 --clients 60 --duration 12 --interval 200 [--ack-timeout 2000] [--path node]
 * </pre>
 *
 * Each client has its own UDP socket (so the balancer sees its own source port), sends CON GET
 * /node, waits {@code --interval} ms after each answer, and retransmits as RFC 7252 §4.2 says:
 * first after a random ACK_TIMEOUT × [1, 1.5), then doubling, at most MAX_RETRANSMIT (4) times;
 * a request unanswered after the last gives up (RFC 7252 §4.8: MAX_TRANSMIT_WAIT). One thread,
 * one selector. Prints one line per event, times in epoch milliseconds:
 *
 * <pre>
 * start MILLIS
 * answer CLIENT MILLIS NODE RTT_MS RETRANSMISSIONS
 * failed CLIENT MILLIS
 * end MILLIS SENT ANSWERED FAILED
 * </pre>
 */
public final class FailoverProbe {

    static final int MAX_RETRANSMIT = 4;

    private FailoverProbe() {
    }

    public static void main(String[] args) throws IOException {
        InetSocketAddress target = null;
        int clients = 30;
        double duration = 10;
        long interval = 200;
        long ackTimeout = 2000;
        String path = "node";
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--target" -> {
                    int colon = v.lastIndexOf(':');
                    target = new InetSocketAddress(v.substring(0, colon), Integer.parseInt(v.substring(colon + 1)));
                    i++;
                }
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--duration" -> duration = Double.parseDouble(args[++i]);
                case "--interval" -> interval = Long.parseLong(args[++i]);
                case "--ack-timeout" -> ackTimeout = Long.parseLong(args[++i]);
                case "--path" -> path = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (target == null) {
            throw new IllegalArgumentException("--target HOST:PORT is required");
        }
        run(target, clients, Math.round(duration * 1000), interval, ackTimeout, path, System.out);
    }

    /** One client's state: at most one request outstanding. */
    private static final class Client {
        final int index;
        final DatagramChannel channel;
        int mid;
        long firstSent;
        long nextAt;
        long timeout;
        int retransmissions;
        boolean awaiting;
        byte[] request;

        Client(int index, DatagramChannel channel, int mid) {
            this.index = index;
            this.channel = channel;
            this.mid = mid;
        }
    }

    static void run(InetSocketAddress target, int count, long durationMillis, long interval, long ackTimeout,
            String path, PrintStream out) throws IOException {
        SplittableRandom random = new SplittableRandom();
        List<Client> clients = new ArrayList<>();
        long sent = 0;
        long answered = 0;
        long failed = 0;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < count; i++) {
                DatagramChannel ch = DatagramChannel.open();
                ch.bind(new InetSocketAddress(0));
                ch.connect(target);
                ch.configureBlocking(false);
                Client c = new Client(i, ch, random.nextInt(0x10000));
                ch.register(selector, SelectionKey.OP_READ, c);
                clients.add(c);
            }
            long start = System.currentTimeMillis();
            long end = start + durationMillis;
            out.println("start " + start);
            for (Client c : clients) {
                c.nextAt = start + random.nextLong(Math.max(1, interval)); // spread the first requests
            }
            ByteBuffer in = ByteBuffer.allocate(2048);
            while (true) {
                long now = System.currentTimeMillis();
                if (now >= end) {
                    break;
                }
                long wake = end;
                for (Client c : clients) {
                    if (c.nextAt <= now) {
                        if (c.awaiting) {
                            if (c.retransmissions == MAX_RETRANSMIT) {
                                failed++;
                                c.awaiting = false;
                                c.nextAt = now + interval;
                                out.println("failed " + c.index + " " + now);
                            } else {
                                c.retransmissions++;
                                c.timeout *= 2;
                                c.nextAt = now + c.timeout;
                                send(c);
                            }
                        } else {
                            c.mid = (c.mid + 1) & 0xFFFF;
                            c.request = request(c.mid, c.index, path);
                            c.firstSent = now;
                            c.retransmissions = 0;
                            c.timeout = ackTimeout + random.nextLong(ackTimeout / 2 + 1);
                            c.nextAt = now + c.timeout;
                            c.awaiting = true;
                            sent++;
                            send(c);
                        }
                    }
                    wake = Math.min(wake, c.nextAt);
                }
                selector.select(Math.max(1, wake - System.currentTimeMillis()));
                for (SelectionKey key : selector.selectedKeys()) {
                    Client c = (Client) key.attachment();
                    while (true) {
                        in.clear();
                        try {
                            if (c.channel.receive(in) == null) {
                                break;
                            }
                        } catch (IOException e) {
                            break; // ICMP port unreachable from a node whose process died: ignored, as CoAP does
                        }
                        in.flip();
                        String node = answer(in, c);
                        if (node != null) {
                            long t = System.currentTimeMillis();
                            answered++;
                            out.println("answer " + c.index + " " + t + " " + node + " " + (t - c.firstSent) + " "
                                    + c.retransmissions);
                            c.awaiting = false;
                            c.nextAt = t + interval;
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
            out.println("end " + System.currentTimeMillis() + " " + sent + " " + answered + " " + failed);
        } finally {
            for (Client c : clients) {
                c.channel.close();
            }
            out.flush();
        }
    }

    private static void send(Client c) {
        try {
            c.channel.write(ByteBuffer.wrap(c.request));
        } catch (IOException e) {
            // an ICMP error from the previous datagram surfaces here on a connected socket: the
            // datagram is lost, and the retransmission timer covers it
        }
    }

    /** CON GET /{path} with MID {@code mid} and a 2-byte token naming the client (RFC 7252 §3). */
    static byte[] request(int mid, int client, String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        if (p.length > 12) {
            throw new IllegalArgumentException("path segment up to 12 bytes: " + path);
        }
        byte[] m = new byte[4 + 2 + 1 + p.length];
        m[0] = 0x42; // version 1, CON, token length 2
        m[1] = 0x01; // GET
        m[2] = (byte) (mid >> 8);
        m[3] = (byte) mid;
        m[4] = (byte) (client >> 8);
        m[5] = (byte) client;
        m[6] = (byte) (0xB0 | p.length); // Uri-Path (11), delta 11
        System.arraycopy(p, 0, m, 7, p.length);
        return m;
    }

    /**
     * The payload of a piggybacked 2.xx answer to {@code c}'s outstanding request (an ACK with its
     * MID), or {@code null} for anything else (late answers to an earlier MID, other messages).
     */
    static String answer(ByteBuffer in, Client c) {
        try {
            return parse(in, c);
        } catch (IndexOutOfBoundsException e) {
            return null; // truncated options: not an answer of ours
        }
    }

    private static String parse(ByteBuffer in, Client c) {
        if (!c.awaiting || in.remaining() < 4) {
            return null;
        }
        int b0 = in.get(0) & 0xFF;
        int type = (b0 >> 4) & 0x3;
        int tkl = b0 & 0x0F;
        int code = in.get(1) & 0xFF;
        int mid = ((in.get(2) & 0xFF) << 8) | (in.get(3) & 0xFF);
        if (type != 2 || mid != c.mid || (code >> 5) != 2) {
            return null;
        }
        int i = 4 + tkl;
        while (i < in.limit() && (in.get(i) & 0xFF) != 0xFF) {
            int b = in.get(i++) & 0xFF; // an option header (RFC 7252 §3.1): skip it and its value
            int delta = b >> 4;
            int length = b & 0x0F;
            if (delta == 15 || length == 15) {
                return null;
            }
            i += delta == 13 ? 1 : delta == 14 ? 2 : 0;
            if (length == 13) {
                length = 13 + (in.get(i++) & 0xFF);
            } else if (length == 14) {
                length = 269 + (((in.get(i) & 0xFF) << 8) | (in.get(i + 1) & 0xFF));
                i += 2;
            }
            i += length;
        }
        if (i >= in.limit()) {
            return "";
        }
        byte[] payload = new byte[in.limit() - i - 1];
        in.get(i + 1, payload);
        return new String(payload, StandardCharsets.UTF_8).trim();
    }
}
