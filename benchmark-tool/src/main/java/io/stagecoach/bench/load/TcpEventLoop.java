package io.stagecoach.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;

/**
 * {@link EventLoop}'s closed loop over {@code coap+tcp} connections (RFC 8323): one
 * {@link Selector} over connected, non-blocking {@code SocketChannel}s. Each client sends its CSM
 * (7.01, no options) together with its first request, then one request at a time, matched by
 * token; nothing is retransmitted (the transport is reliable). Signals from the server are
 * skipped, except that a Ping gets its Pong (§5.4) and a Release or Abort (§5.5, §5.6), like a
 * closed connection, ends that client: its outstanding request counts as an error and it sends
 * no more. A request unanswered within the timeout counts as a timeout and the client sends the
 * next one on the same connection.
 *
 * <p>Frames (§3.2) are read from one shared buffer; only a frame that arrives in parts is copied
 * (into the client's carry). A frame larger than the buffer is skipped after its header.
 */
final class TcpEventLoop extends SelectorLoop {

    private static final int SERVICE_UNAVAILABLE = 5 << 5 | 3;
    private static final int PING = 7 << 5 | 2;
    private static final int PONG = 7 << 5 | 3;
    private static final int RELEASE = 7 << 5 | 4;
    private static final int ABORT = 7 << 5 | 5;
    /** CSM: Len 0, TKL 0, code 7.01 (RFC 8323 §5.3). */
    private static final byte[] CSM = {0x00, (byte) 0xE1};

    private final List<TcpVirtualClient> clients;
    private final RequestTemplate template;
    private final long timeoutNanos;
    private final long highestMicros;
    private final long rampNanos;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(65_536 + 16);

    TcpEventLoop(List<TcpVirtualClient> clients, RequestTemplate template, long timeoutNanos, long highestMicros,
            long rampNanos) {
        super(highestMicros);
        this.clients = clients;
        this.template = template;
        this.timeoutNanos = timeoutNanos;
        this.highestMicros = highestMicros;
        this.rampNanos = rampNanos;
    }

    @Override
    public void closeClients() {
        for (TcpVirtualClient c : clients) {
            try {
                c.channel.close();
            } catch (IOException e) {
                // the connection is gone either way
            }
        }
    }

    @Override
    public void run() {
        runLoop(clients.size(), rampNanos, Retransmission.OFF.scanNanos(timeoutNanos));
    }

    @Override
    void register(Selector sel) throws IOException {
        for (TcpVirtualClient c : clients) {
            c.key = c.channel.register(sel, SelectionKey.OP_READ, c);
        }
    }

    @Override
    void start(int index, long now) {
        send(clients.get(index), now);
    }

    @Override
    void onKey(SelectionKey key) {
        TcpVirtualClient c = (TcpVirtualClient) key.attachment();
        if (c.closed) {
            return;
        }
        try {
            if (key.isWritable() && c.pendingOut != null) {
                ByteBuffer rest = ByteBuffer.wrap(c.pendingOut);
                c.channel.write(rest);
                c.pendingOut = rest.hasRemaining() ? copyRest(rest) : null;
                if (c.pendingOut == null) {
                    key.interestOps(SelectionKey.OP_READ);
                }
            }
            if (key.isReadable()) {
                read(c);
            }
        } catch (IOException e) {
            end(c);
        }
    }

    private void read(TcpVirtualClient c) throws IOException {
        while (!c.closed) {
            rx.clear();
            if (c.carry != null) {
                rx.put(c.carry);
                c.carry = null;
            }
            int start = rx.position();
            int n = c.channel.read(rx);
            if (n < 0) {
                end(c);
                return;
            }
            rx.flip();
            if (c.skip > 0) {
                int s = (int) Math.min(c.skip, rx.remaining());
                c.skip -= s;
                rx.position(rx.position() + s);
            }
            frames(c, System.nanoTime());
            if (rx.hasRemaining() && !c.closed) {
                c.carry = new byte[rx.remaining()];
                rx.get(c.carry);
            }
            if (n < rx.capacity() - start) {
                return; // a short read: the socket is drained
            }
        }
    }

    /** Handles the whole frames in {@code rx}; leaves a partial one's bytes remaining. */
    private void frames(TcpVirtualClient c, long now) throws IOException {
        while (rx.remaining() >= 2 && !c.closed) {
            int at = rx.position();
            int first = rx.get(at) & 0xFF;
            int len = first >> 4;
            int tkl = first & 0x0F;
            int ext = len == 13 ? 1 : len == 14 ? 2 : len == 15 ? 4 : 0;
            int header = 1 + ext + 1 + tkl;
            if (rx.remaining() < 1 + ext) {
                return;
            }
            long body = switch (len) {
                case 13 -> 13 + (rx.get(at + 1) & 0xFF);
                case 14 -> 269 + (rx.getShort(at + 1) & 0xFFFF);
                case 15 -> 65_805 + (rx.getInt(at + 1) & 0xFFFFFFFFL);
                default -> len;
            };
            long frame = header + body;
            if (rx.remaining() < header) {
                return;
            }
            if (frame > rx.remaining()) {
                if (frame <= rx.capacity() / 2) {
                    return; // fits the buffer: wait for the rest
                }
                onFrame(c, at, header, tkl, now);
                c.skip = frame - rx.remaining();
                rx.position(rx.limit());
                return;
            }
            onFrame(c, at, header, tkl, now);
            rx.position((int) (at + frame));
        }
    }

    private void onFrame(TcpVirtualClient c, int at, int header, int tkl, long now) throws IOException {
        int code = rx.get(at + header - tkl - 1) & 0xFF;
        if (code >> 5 == 7) {
            if (code == PING) {
                tx.clear();
                tx.put((byte) tkl).put((byte) PONG);
                for (int i = 0; i < tkl; i++) {
                    tx.put(rx.get(at + header - tkl + i));
                }
                tx.flip();
                c.channel.write(tx);
            } else if (code == RELEASE || code == ABORT) {
                end(c);
            }
            return;
        }
        if (code >> 5 == 0 || !c.awaiting || tkl != RequestTemplate.TOKEN_LENGTH
                || rx.getInt(at + header - tkl) != c.token) {
            counters.stray++;
            return;
        }
        if (code >> 5 == 2) {
            long micros = (now - c.sentNanos) / 1_000;
            recorder.recordValue(Math.max(1, Math.min(micros, highestMicros)));
        } else if (code == SERVICE_UNAVAILABLE) {
            counters.unavailable++;
        }
        finish(c, code >> 5 == 2, now);
    }

    private void finish(TcpVirtualClient c, boolean success, long now) {
        c.awaiting = false;
        counters.inFlight--;
        if (success) {
            counters.completed++;
        } else {
            counters.errors++;
        }
        if (phase == RUN) {
            send(c, now);
        }
    }

    /** The connection ended: an outstanding request is an error, the client stops. */
    private void end(TcpVirtualClient c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        if (c.awaiting) {
            c.awaiting = false;
            counters.inFlight--;
            counters.errors++;
        }
        if (c.key != null) {
            c.key.cancel();
        }
        try {
            c.channel.close();
        } catch (IOException e) {
            // gone either way
        }
    }

    @Override
    void scanTimeouts(long now) {
        for (TcpVirtualClient c : clients) {
            if (c.awaiting && c.pendingOut == null && now - c.sentNanos >= timeoutNanos) {
                c.awaiting = false;
                counters.inFlight--;
                counters.timeouts++;
                if (phase == RUN) {
                    send(c, now);
                }
            }
        }
    }

    private void send(TcpVirtualClient c, long now) {
        if (c.closed) {
            return;
        }
        c.token++;
        c.awaiting = true;
        c.sentNanos = now;
        counters.inFlight++;
        counters.sent++;
        tx.clear();
        if (!c.greeted) {
            tx.put(CSM);
            c.greeted = true;
        }
        template.appendFrame(tx, c.token);
        tx.flip();
        try {
            c.channel.write(tx);
            if (tx.hasRemaining()) {
                c.pendingOut = copyRest(tx);
                c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
        } catch (IOException e) {
            end(c);
        }
    }

    private static byte[] copyRest(ByteBuffer b) {
        byte[] rest = new byte[b.remaining()];
        b.get(rest);
        return rest;
    }
}
