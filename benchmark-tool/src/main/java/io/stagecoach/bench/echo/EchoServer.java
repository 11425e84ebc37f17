package io.stagecoach.bench.echo;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The smallest CoAP server the JVM allows: one thread, one blocking {@link DatagramChannel},
 * no state. It answers every request without looking at the URI (RFC 7252 §5.2):
 * <ul>
 *   <li>CON GET/FETCH → piggybacked ACK 2.05 Content, same MID and token, Content-Format
 *       text/plain, payload {@code hello world} (the papers' benchmark resource);
 *   <li>CON other methods → ACK 2.04 Changed, no payload;
 *   <li>NON request → NON response with the same code rules, a MID of its own;
 *   <li>CON empty message (CoAP ping, §4.3) → RST; anything else is dropped.
 * </ul>
 * Used to test the load generator and to state its ceiling: a server cannot answer faster
 * than this loop on the same machine.
 */
public final class EchoServer implements AutoCloseable {

    private static final byte[] HELLO = "hello world".getBytes(StandardCharsets.US_ASCII);

    private final DatagramChannel channel;
    private final NamedThreadFactory threads = new NamedThreadFactory("bench-echo", true);
    private final Thread thread;
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean closed;
    private int nextMid;

    private EchoServer(DatagramChannel channel) {
        this.channel = channel;
        this.thread = threads.newThread(this::serve);
    }

    /** Binds {@code address} (port 0 = any free port) and starts answering. */
    public static EchoServer start(InetSocketAddress address) throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        try {
            // Thousands of virtual clients each keep a request outstanding: ask for big buffers
            // (the kernel caps them at net.core.rmem_max / wmem_max).
            ch.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
            ch.bind(address);
        } catch (IOException e) {
            ch.close();
            throw new IOException("echo server cannot bind " + address + ": " + e.getMessage(), e);
        }
        EchoServer server = new EchoServer(ch);
        server.thread.start();
        return server;
    }

    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("echo server is closed", e);
        }
    }

    /** Responses sent so far. */
    public long answered() {
        return answered.get();
    }

    private void serve() {
        ByteBuffer in = ByteBuffer.allocateDirect(65_536);
        ByteBuffer out = ByteBuffer.allocateDirect(65_536);
        while (!closed) {
            try {
                in.clear();
                SocketAddress from = channel.receive(in);
                in.flip();
                if (answer(in, out)) {
                    channel.send(out, from);
                    answered.incrementAndGet();
                }
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                // A send to a vanished client (ICMP) must not stop the server.
            }
        }
    }

    /** Builds the answer to {@code in} into {@code out}; false when nothing is to be sent. */
    boolean answer(ByteBuffer in, ByteBuffer out) {
        int n = in.limit();
        if (n < 4 || (in.get(0) & 0xC0) != 0x40) {
            return false;
        }
        int type = (in.get(0) >> 4) & 0x3;
        int tkl = in.get(0) & 0x0F;
        int code = in.get(1) & 0xFF;
        if (tkl > 8 || n < 4 + tkl) {
            return false;
        }
        out.clear();
        if (code == 0) {
            if (type != 0) {
                return false;
            }
            out.put((byte) 0x70).put((byte) 0).putShort(in.getShort(2)).flip();
            return true;
        }
        if ((code >> 5) != 0 || type > 1) {
            return false;
        }
        boolean content = code == 1 || code == 5;
        int replyType = type == 0 ? 2 : 1;
        int mid = type == 0 ? in.getShort(2) & 0xFFFF : (nextMid++ & 0xFFFF);
        out.put((byte) (0x40 | replyType << 4 | tkl));
        out.put((byte) (content ? 0x45 : 0x44));
        out.putShort((short) mid);
        for (int i = 0; i < tkl; i++) {
            out.put(in.get(4 + i));
        }
        if (content) {
            // Content-Format (12) = 0 (text/plain), encoded as a zero-length option.
            out.put((byte) 0xC0).put((byte) 0xFF).put(HELLO);
        }
        out.flip();
        return true;
    }

    @Override
    public void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
        threads.joinAll(Duration.ofSeconds(5));
    }

    /** {@code echo-server [--port N] [--bind ADDR]}: runs until killed. */
    public static void main(String[] args) throws Exception {
        int port = 5683;
        String bind = "0.0.0.0";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--bind" -> bind = value(args, ++i, "--bind");
                default -> throw new IllegalArgumentException("echo-server: unknown option " + args[i]
                        + " (use --port N, --bind ADDR)");
            }
        }
        EchoServer server = start(new InetSocketAddress(bind, port));
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "stagecoach-echo-shutdown"));
        System.err.println("echo server on udp " + server.address() + " (2.05 \"hello world\" to every CON GET)");
        server.thread.join();
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }
}
