package io.stagecoach.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;

/**
 * Drives a share of the virtual clients from one thread: one {@link Selector} over their
 * non-blocking, connected {@code DatagramChannel}s, closed loop (each answer immediately
 * triggers the client's next request), CON requests retransmitted only when a
 * {@link Retransmission} interval is set.
 *
 * <p>Timeouts and retransmissions use a per-loop deadline scan ({@link Retransmission#scanNanos},
 * 1..100 ms): since every request has the same timeout, a sweep over the loop's clients is
 * cheaper than one timer per request and allocates nothing. A request counts as timed out (or
 * is retransmitted) within one scan interval after its deadline. The round-trip time of an
 * answer is measured from the request's first transmission.
 *
 * <p>Response matching (RFC 7252 §4.2, §5.3.2): a piggybacked ACK must carry the request's MID
 * and token; a separate response (CON or NON) is matched by token alone, and a CON one is
 * acknowledged with an empty ACK; an empty ACK means "separate response follows" and the client
 * keeps waiting; a RST with the request's MID ends the request as an error. 2.xx counts as
 * completed and its round-trip time goes into the loop's histogram (µs); any other code counts
 * as an error, and a 5.03 is also counted on its own.
 */
final class EventLoop extends SelectorLoop {

    /** 5.03 as the code byte (class 5, detail 3; RFC 7252 §3). */
    private static final int SERVICE_UNAVAILABLE = 5 << 5 | 3;

    private final List<VirtualClient> clients;
    private final RequestTemplate template;
    private final long timeoutNanos;
    private final Retransmission retransmission;
    private final long scanNanos;
    private final long highestMicros;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer control = ByteBuffer.allocateDirect(4);

    private final long rampNanos;

    /**
     * @param rampNanos the clients' first requests are spread evenly over this time: a burst of
     *                  thousands of datagrams at once would overflow the server's receive buffer
     *                  and leave those clients idle for a whole timeout
     */
    EventLoop(List<VirtualClient> clients, RequestTemplate template, long timeoutNanos, Retransmission retransmission,
            long highestMicros, long rampNanos) {
        super(highestMicros);
        this.clients = clients;
        this.rampNanos = rampNanos;
        this.template = template;
        this.timeoutNanos = timeoutNanos;
        // NON requests are never retransmitted (RFC 7252 §4.3).
        this.retransmission = template.confirmable() ? retransmission : Retransmission.OFF;
        this.scanNanos = this.retransmission.scanNanos(timeoutNanos);
        this.highestMicros = highestMicros;
    }

    @Override
    public void closeClients() {
        for (VirtualClient c : clients) {
            try {
                c.channel.close();
            } catch (IOException e) {
                // closing a datagram socket does not fail in a way that matters here
            }
        }
    }

    @Override
    public void run() {
        runLoop(clients.size(), rampNanos, scanNanos);
    }

    @Override
    void register(Selector sel) throws IOException {
        for (VirtualClient c : clients) {
            c.key = c.channel.register(sel, SelectionKey.OP_READ, c);
        }
    }

    @Override
    void start(int index, long now) {
        send(clients.get(index), now);
    }

    @Override
    void onKey(SelectionKey key) {
        VirtualClient c = (VirtualClient) key.attachment();
        try {
            if (key.isWritable() && c.writePending) {
                if (write(c)) {
                    key.interestOps(SelectionKey.OP_READ);
                }
            }
            if (key.isReadable()) {
                while (true) {
                    rx.clear();
                    if (c.channel.read(rx) <= 0) {
                        break;
                    }
                    rx.flip();
                    onDatagram(c, System.nanoTime());
                }
            }
        } catch (IOException e) {
            // ICMP port unreachable surfaces here on a connected socket: the request is left to
            // time out, as a lost datagram would be.
        }
    }

    private void onDatagram(VirtualClient c, long now) throws IOException {
        int n = rx.limit();
        if (n < 4 || (rx.get(0) & 0xC0) != 0x40) {
            counters.stray++;
            return;
        }
        int type = (rx.get(0) >> 4) & 0x3;
        int tkl = rx.get(0) & 0x0F;
        int code = rx.get(1) & 0xFF;
        int mid = rx.getShort(2) & 0xFFFF;
        boolean midMatches = c.awaiting && mid == c.mid;
        if (code == 0) {
            if (type == 3 && midMatches) {
                finish(c, false, now);
            } else if (type == 2 && midMatches) {
                // An empty ACK: the server has the request and will answer separately; a CON is
                // not retransmitted after its ACK (RFC 7252 §4.2), only the timeout still applies.
                c.retransmissions = Retransmission.MAX_RETRANSMIT;
            } else {
                counters.stray++;
            }
            return;
        }
        if ((code >> 5) == 0) {
            counters.stray++;
            return;
        }
        boolean matches = c.awaiting && tkl == RequestTemplate.TOKEN_LENGTH && n >= 8
                && rx.getInt(4) == c.token && (type != 2 || midMatches);
        if (type == 0) {
            sendEmpty(c, matches ? 0x60 : 0x70, mid);
        }
        if (!matches) {
            counters.stray++;
            return;
        }
        if ((code >> 5) == 2) {
            long micros = (now - c.sentNanos) / 1_000;
            recorder.recordValue(Math.max(1, Math.min(micros, highestMicros)));
        } else if (code == SERVICE_UNAVAILABLE) {
            counters.unavailable++;
        }
        finish(c, (code >> 5) == 2, now);
    }

    private void finish(VirtualClient c, boolean success, long now) {
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

    @Override
    void scanTimeouts(long now) {
        for (VirtualClient c : clients) {
            if (!c.awaiting || c.writePending) {
                continue;
            }
            switch (retransmission.decide(now - c.sentNanos, c.retransmissions, timeoutNanos)) {
                case TIMEOUT -> {
                    c.awaiting = false;
                    counters.inFlight--;
                    counters.timeouts++;
                    if (phase == RUN) {
                        send(c, now);
                    }
                }
                case RETRANSMIT -> retransmit(c);
                case WAIT -> { }
            }
        }
    }

    /**
     * Sends the outstanding request again, same MID and token (RFC 7252 §4.2). A full socket
     * buffer or a send error leaves it for the next scan, which finds it still due.
     */
    private void retransmit(VirtualClient c) {
        template.writeTo(tx, c.mid, c.token);
        try {
            if (c.channel.write(tx) == 0) {
                return;
            }
        } catch (IOException e) {
            return;
        }
        c.retransmissions++;
        counters.retransmissions++;
    }

    private void send(VirtualClient c, long now) {
        c.advance();
        c.awaiting = true;
        c.sentNanos = now;
        counters.inFlight++;
        counters.sent++;
        try {
            if (!write(c)) {
                c.writePending = true;
                c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
        } catch (IOException e) {
            // A failed send (e.g. a pending ICMP error) is a lost request: it will time out.
            c.writePending = false;
        }
    }

    /** Writes the client's current request; false when the socket buffer is full. */
    private boolean write(VirtualClient c) throws IOException {
        template.writeTo(tx, c.mid, c.token);
        if (c.channel.write(tx) == 0) {
            return false;
        }
        if (c.writePending) {
            c.writePending = false;
            // The timer starts when the request actually left.
            c.sentNanos = System.nanoTime();
        }
        return true;
    }

    private void sendEmpty(VirtualClient c, int firstByte, int mid) throws IOException {
        control.clear();
        control.put((byte) firstByte).put((byte) 0).putShort((short) mid).flip();
        c.channel.write(control);
    }
}
