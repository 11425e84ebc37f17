package io.stagecoach.bench.scenario;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Type;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The amplification part of the flood scenario: one request per probe, each from its own socket
 * on the victim's address, and nothing else ever sent from there: no ACK, no RST, no Echo
 * returned. From the server's side that is a request with a spoofed source, whose victim does not
 * speak CoAP. A thread ({@code bench-flood-victim}) counts what arrives on each socket until
 * {@link #close()}: a CON separate response or notification the server retransmits shows up as
 * often as it is sent.
 */
final class SpoofedProbes implements AutoCloseable {

    /** One spoofed request. */
    record Probe(String name, byte[] request, boolean observe) {
    }

    /**
     * What the victim received for one probe.
     *
     * @param datagrams       every datagram until the end of the run
     * @param bytes           their UDP payload bytes
     * @param watchDatagrams  datagrams within the watch window after the request
     * @param watchBytes      their bytes
     * @param firstDatagrams  type and code of the first few, e.g. {@code ACK 2.05 53 B}
     * @param watchedSeconds  real seconds from the request to the end of the run
     */
    record Result(String name, int requestBytes, boolean observe, long datagrams, long bytes, long watchDatagrams,
            long watchBytes, List<String> firstDatagrams, double watchedSeconds) {

        /** Bytes received per byte of the request. */
        double ratio() {
            return (double) bytes / requestBytes;
        }
    }

    private static final int SHOWN = 4;

    /** The spoofed requests and their observe counterparts (plugtest resource names). */
    static List<Probe> standard() {
        return List.of(
                new Probe("CON GET /.well-known/core", FloodDatagrams.request(Type.CON, Code.GET, "/.well-known/core",
                        null, false), false),
                new Probe("NON GET /.well-known/core", FloodDatagrams.request(Type.NON, Code.GET, "/.well-known/core",
                        null, false), false),
                new Probe("CON GET /large", FloodDatagrams.request(Type.CON, Code.GET, "/large", null, false), false),
                new Probe("CON GET /large Block2 0/1024", FloodDatagrams.request(Type.CON, Code.GET, "/large", null,
                        false, 6), false),
                new Probe("CON GET /", FloodDatagrams.request(Type.CON, Code.GET, "/", null, false), false),
                new Probe("CON GET /obs Observe 0", FloodDatagrams.request(Type.CON, Code.GET, "/obs", null, true),
                        true),
                new Probe("NON GET /obs-non Observe 0", FloodDatagrams.request(Type.NON, Code.GET, "/obs-non", null,
                        true), true),
                new Probe("CON GET /obs-large Observe 0", FloodDatagrams.request(Type.CON, Code.GET, "/obs-large",
                        null, true), true));
    }

    private static final class Socket {
        final Probe probe;
        final DatagramChannel channel;
        long sentNanos;
        long datagrams;
        long bytes;
        long watchDatagrams;
        long watchBytes;
        final List<String> first = new ArrayList<>();

        Socket(Probe probe, DatagramChannel channel) {
            this.probe = probe;
            this.channel = channel;
        }
    }

    private final List<Socket> sockets = new ArrayList<>();
    private final long watchNanos;
    private final Selector selector;
    private final Thread thread;
    private final ByteBuffer rx = ByteBuffer.allocate(65_536);
    private volatile boolean running = true;
    private volatile long closedNanos;

    /** Sends every probe's request from its own socket on {@code victim} and starts counting. */
    SpoofedProbes(InetAddress victim, InetSocketAddress server, List<Probe> probes, long watchNanos)
            throws IOException {
        this.watchNanos = watchNanos;
        this.selector = Selector.open();
        try {
            for (Probe p : probes) {
                DatagramChannel ch = DatagramChannel.open();
                Socket s = new Socket(p, ch);
                sockets.add(s);
                ch.bind(new InetSocketAddress(victim, 0));
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ, s);
            }
            for (Socket s : sockets) {
                s.sentNanos = System.nanoTime();
                s.channel.send(ByteBuffer.wrap(s.probe.request()), server);
            }
        } catch (IOException e) {
            closeChannels();
            selector.close();
            throw e;
        }
        thread = new Thread(this::loop, "bench-flood-victim");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            while (running) {
                selector.select(key -> read((Socket) key.attachment()), 10);
            }
        } catch (IOException e) {
            // the selector closed under us: the run is over
        }
    }

    private void read(Socket s) {
        try {
            while (true) {
                rx.clear();
                if (s.channel.receive(rx) == null) {
                    return;
                }
                long at = System.nanoTime() - s.sentNanos;
                int n = rx.position();
                synchronized (s) {
                    s.datagrams++;
                    s.bytes += n;
                    if (at <= watchNanos) {
                        s.watchDatagrams++;
                        s.watchBytes += n;
                    }
                    if (s.first.size() < SHOWN) {
                        s.first.add(describe(rx.array(), n) + String.format(java.util.Locale.ROOT, " at %.2f s", at / 1e9));
                    }
                }
            }
        } catch (IOException e) {
            // ICMP errors do not reach an unconnected socket; a closed one ends the run
        }
    }

    /** {@code CON 2.05 20 B}, {@code ACK 0.00 4 B}. */
    static String describe(byte[] d, int n) {
        if (n < 4) {
            return "short " + n + " B";
        }
        String type = switch ((d[0] >> 4) & 3) {
            case 0 -> "CON";
            case 1 -> "NON";
            case 2 -> "ACK";
            default -> "RST";
        };
        int code = d[1] & 0xFF;
        return type + " " + (code >> 5) + "." + String.format(java.util.Locale.ROOT, "%02d", code & 31) + " " + n + " B";
    }

    /** Stops counting, closes the sockets and returns what each probe's victim received. */
    List<Result> finish() throws InterruptedException {
        running = false;
        selector.wakeup();
        thread.join(5_000);
        closedNanos = System.nanoTime();
        List<Result> out = new ArrayList<>();
        for (Socket s : sockets) {
            synchronized (s) {
                out.add(new Result(s.probe.name(), s.probe.request().length, s.probe.observe(), s.datagrams, s.bytes,
                        s.watchDatagrams, s.watchBytes, List.copyOf(s.first), (closedNanos - s.sentNanos) / 1e9));
            }
        }
        close();
        return out;
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to release
        }
        closeChannels();
    }

    private void closeChannels() {
        for (Socket s : sockets) {
            try {
                s.channel.close();
            } catch (IOException e) {
                // see InnocentClients
            }
        }
    }
}
