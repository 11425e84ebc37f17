package io.stagecoach.bench.load;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code coap+tcp} test peer on loopback for the load generator (RFC 8323): a blocking thread
 * per connection reads whole frames (§3.2), records what each connection sent and writes what
 * its {@link Script} says. Counts are kept under the peer's lock.
 */
final class TcpScriptedPeer implements AutoCloseable {

    static final int CSM = 0xE1;
    static final int PING = 0xE2;
    static final int PONG = 0xE3;
    static final int RELEASE = 0xE4;

    /** One frame: its code and token (body skipped). */
    record Frame(int code, byte[] token) {
    }

    /** What the peer writes: on a new connection, and after each request frame. */
    interface Script {
        byte[] greeting();

        /** @param index 1 for the connection's first request, 2 for its second, ... */
        byte[] answer(Frame request, int index);
    }

    /** CSM on accept, then 2.05 with the request's token to every request. */
    static final Script ECHO = new Script() {
        @Override
        public byte[] greeting() {
            return frame(CSM, new byte[0]);
        }

        @Override
        public byte[] answer(Frame request, int index) {
            return frame(0x45, request.token());
        }
    };

    /** What one connection sent, in order, and whether it ended (the client closed it). */
    static final class Connection {
        final List<Frame> frames = new ArrayList<>();
        boolean ended;

        long requests() {
            return frames.stream().filter(f -> f.code() >> 5 == 0 && f.code() != 0).count();
        }
    }

    private final ServerSocket server;
    private final Script script;
    private final NamedThreadFactory threads = new NamedThreadFactory("test-tcp-peer", true);
    private final List<Connection> connections = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private long requests;
    private long endedCount;
    private long doneReading; // connections whose reader stopped: clean end, reset or close()

    private TcpScriptedPeer(ServerSocket server, Script script) {
        this.server = server;
        this.script = script;
    }

    static TcpScriptedPeer start(Script script) throws IOException {
        ServerSocket s = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        TcpScriptedPeer peer = new TcpScriptedPeer(s, script);
        peer.threads.newThread(peer::accept).start();
        return peer;
    }

    /** A frame with Len 0 (no options, no payload), {@code code} and {@code token}. */
    static byte[] frame(int code, byte[] token) {
        byte[] f = new byte[2 + token.length];
        f[0] = (byte) token.length;
        f[1] = (byte) code;
        System.arraycopy(token, 0, f, 2, token.length);
        return f;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    synchronized long requests() {
        return requests;
    }

    /** Connections the client closed so far. */
    synchronized long ended() {
        return endedCount;
    }

    /**
     * Waits until the readers of {@code n} connections have stopped (the client closed or reset
     * them), so that {@link #connections()} holds everything those connections sent: the client
     * closing its sockets does not mean this peer has read what was already in flight.
     */
    synchronized void awaitReadersDone(long n) throws InterruptedException {
        while (doneReading < n) {
            wait(); // bounded by the test's @Timeout
        }
    }

    /** A copy of what every connection sent so far (frames copied, in accept order). */
    synchronized List<Connection> connections() {
        List<Connection> out = new ArrayList<>();
        for (Connection c : connections) {
            Connection copy = new Connection();
            copy.frames.addAll(c.frames);
            copy.ended = c.ended;
            out.add(copy);
        }
        return out;
    }

    private void accept() {
        try {
            while (true) {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Connection c = new Connection();
                synchronized (this) {
                    connections.add(c);
                    sockets.add(s);
                }
                threads.newThread(() -> serve(s, c)).start();
            }
        } catch (IOException closed) {
            // close() ended the peer
        }
    }

    private void serve(Socket s, Connection c) {
        try (s) {
            OutputStream out = s.getOutputStream();
            out.write(script.greeting());
            DataInputStream in = new DataInputStream(s.getInputStream());
            int index = 0;
            while (true) {
                Frame f = read(in);
                if (f == null) {
                    synchronized (this) {
                        c.ended = true;
                        endedCount++;
                    }
                    return;
                }
                boolean request = f.code() >> 5 == 0 && f.code() != 0;
                synchronized (this) {
                    c.frames.add(f);
                    if (request) {
                        requests++;
                    }
                }
                if (request) {
                    byte[] answer = script.answer(f, ++index);
                    if (answer != null) {
                        out.write(answer);
                    }
                }
            }
        } catch (IOException e) {
            // close() ended the connection, or the client reset it
        } finally {
            synchronized (this) {
                doneReading++;
                notifyAll();
            }
        }
    }

    /** The next frame, or {@code null} at a clean end of the stream. */
    private static Frame read(DataInputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        int len = first >> 4;
        long body = switch (len) {
            case 13 -> 13 + in.readUnsignedByte();
            case 14 -> 269 + in.readUnsignedShort();
            case 15 -> 65_805 + (in.readInt() & 0xFFFFFFFFL);
            default -> len;
        };
        int code = in.readUnsignedByte();
        byte[] token = new byte[first & 0x0F];
        in.readFully(token);
        if (in.skip(body) != body) {
            throw new EOFException("frame cut short");
        }
        return new Frame(code, token);
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (this) {
            for (Socket s : sockets) {
                s.close();
            }
        }
        threads.joinAll(Duration.ofSeconds(2));
    }
}
