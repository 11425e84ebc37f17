package io.stagecoach.bench;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Echo throughput of a UDP server on loopback: {@code clients} blocking client sockets each keep
 * {@code window / clients} datagrams outstanding; the server echoes; we count echoes per second.
 * Several client sockets are needed so that SO_REUSEPORT (Netty, epoll) can spread the load.
 *
 * <p>Servers: {@code bare-channel} (one thread, blocking DatagramChannel receive/send loop),
 * {@code bare-socket} (same with java.net.DatagramSocket), {@code udp} (UdpConnector),
 * {@code netty} (NettyUdpConnector).
 *
 * <pre>java -cp ... io.stagecoach.bench.ConnectorEcho &lt;server&gt; [receivers=1] [seconds=10] [window=64] [clients=4] [size=64]</pre>
 */
public final class ConnectorEcho {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long LOSS_TIMEOUT_MS = 200;

    private ConnectorEcho() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: ConnectorEcho bare-channel|bare-socket|udp|netty [receivers] [seconds] [window] [clients] [size]");
            System.exit(2);
        }
        String server = args[0];
        int receivers = arg(args, 1, 1);
        int seconds = arg(args, 2, 10);
        int window = arg(args, 3, 64);
        int clients = arg(args, 4, 4);
        int size = arg(args, 5, 64);
        try (EchoServer s = EchoServer.start(server, receivers)) {
            Result r = blast(s.address(), seconds, window, clients, size);
            System.out.printf("%-12s receivers=%d window=%d clients=%d size=%d: %,.0f datagrams/s (%d echoes in %.1f s, %d presumed lost)%n",
                    server, receivers, window, clients, size, r.echoes / r.seconds, r.echoes, r.seconds, r.lost);
        }
    }

    private static int arg(String[] args, int i, int dflt) {
        return args.length > i ? Integer.parseInt(args[i]) : dflt;
    }

    record Result(long echoes, double seconds, long lost) {
    }

    static Result blast(InetSocketAddress server, int seconds, int window, int clients, int size) throws Exception {
        NamedThreadFactory threads = new NamedThreadFactory("bench-client", true);
        LongAdder echoes = new LongAdder();
        LongAdder lost = new LongAdder();
        List<DatagramChannel> channels = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        long warmupNanos = TimeUnit.SECONDS.toNanos(2);
        long start = System.nanoTime();
        long measureFrom = start + warmupNanos;
        long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        for (int c = 0; c < clients; c++) {
            DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            ch.connect(server);
            channels.add(ch);
            Semaphore permits = new Semaphore(Math.max(1, window / clients));
            started.add(threads.newThread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(2048);
                while (ch.isOpen()) {
                    try {
                        buf.clear();
                        ch.read(buf);
                    } catch (IOException e) {
                        return;
                    }
                    permits.release();
                    if (System.nanoTime() >= measureFrom) {
                        echoes.increment();
                    }
                }
            }));
            started.add(threads.newThread(() -> {
                ByteBuffer out = ByteBuffer.allocateDirect(size);
                try {
                    while (System.nanoTime() < end) {
                        if (!permits.tryAcquire(LOSS_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                            lost.increment(); // an echo never came: send anyway, the window stays full
                        }
                        out.clear();
                        ch.write(out);
                    }
                } catch (IOException | InterruptedException e) {
                    // end of run
                }
            }));
        }
        started.forEach(Thread::start);
        // wait for the senders (odd-numbered threads), then close the sockets to end the readers
        for (int i = 1; i < started.size(); i += 2) {
            started.get(i).join();
        }
        long measured = echoes.sum();
        double secs = (System.nanoTime() - measureFrom) / 1e9;
        for (DatagramChannel ch : channels) {
            ch.close();
        }
        threads.joinAll(Duration.ofSeconds(5));
        return new Result(measured, secs, lost.sum());
    }

    /** The server side of a run. */
    interface EchoServer extends AutoCloseable {
        InetSocketAddress address();

        @Override
        void close();

        static EchoServer start(String kind, int receivers) throws IOException {
            UdpConnectorConfig config = UdpConnectorConfig.builder().bindAddress(new InetSocketAddress(LOOPBACK, 0))
                    .receiverThreads(receivers).buildConfig();
            switch (kind) {
                case "udp":
                    return connectorServer(config.newBuilder().build());
                case "netty":
                    return connectorServer(new NettyUdpConnector(config));
                case "bare-channel":
                    return bareChannel();
                case "bare-socket":
                    return bareSocket();
                default:
                    throw new IllegalArgumentException("unknown server " + kind);
            }
        }

        private static EchoServer connectorServer(Connector c) throws IOException {
            c.setRawDataReceiver(d -> c.send(RawData.outbound(d.bytes(), d.context(), null)));
            c.start();
            return new EchoServer() {
                @Override
                public InetSocketAddress address() {
                    return c.getAddress();
                }

                @Override
                public void close() {
                    System.out.println("  server counters: " + c.counters());
                    c.destroy();
                }
            };
        }

        private static EchoServer bareChannel() throws IOException {
            DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            NamedThreadFactory tf = new NamedThreadFactory("bench-server", true);
            Thread t = tf.newThread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(2048);
                try {
                    while (true) {
                        buf.clear();
                        SocketAddress from = ch.receive(buf);
                        buf.flip();
                        ch.send(buf, from);
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            t.start();
            return closer((InetSocketAddress) ch.getLocalAddress(), () -> ch.close(), tf);
        }

        private static EchoServer bareSocket() throws IOException {
            DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            NamedThreadFactory tf = new NamedThreadFactory("bench-server", true);
            Thread t = tf.newThread(() -> {
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                try {
                    while (true) {
                        p.setLength(2048);
                        s.receive(p);
                        s.send(p);
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            t.start();
            return closer((InetSocketAddress) s.getLocalSocketAddress(), s::close, tf);
        }

        private static EchoServer closer(InetSocketAddress address, IoAction close, NamedThreadFactory tf) {
            return new EchoServer() {
                @Override
                public InetSocketAddress address() {
                    return address;
                }

                @Override
                public void close() {
                    try {
                        close.run();
                    } catch (IOException e) {
                        // already closed
                    }
                    tf.joinAll(Duration.ofSeconds(5));
                }
            };
        }
    }

    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }
}
