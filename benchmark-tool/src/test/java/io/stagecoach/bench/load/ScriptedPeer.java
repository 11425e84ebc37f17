package io.stagecoach.bench.load;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A test peer on loopback for the load generator: it keeps, per request (client port and MID),
 * the copies that arrived and their tokens, and answers each copy as its {@link Script} says.
 * Its thread handles datagrams under the peer's lock, and every query first handles whatever has
 * arrived by then under the same lock: a count read when a window begins therefore includes
 * every datagram the clients had sent before, however late the peer's thread runs.
 */
final class ScriptedPeer implements AutoCloseable {

    /** What to send back for a copy of a request: the reply's bytes, or {@code null} for nothing. */
    @FunctionalInterface
    interface Script {
        /**
         * @param request the datagram (position 0, limit its length)
         * @param copy    1 for the first copy of this request, 2 for the first retransmission, ...
         */
        ByteBuffer answer(ByteBuffer request, int copy);
    }

    /** Never answers. */
    static final Script SILENT = (request, copy) -> null;

    /**
     * Loses every request's first copy and answers later ones with a piggybacked ACK 2.05 (same
     * MID and token, RFC 7252 §5.2.1): only a retransmitting client completes anything.
     */
    static final Script DROP_FIRST_COPY = (request, copy) -> {
        if (copy == 1) {
            return null;
        }
        int tkl = request.get(0) & 0x0F;
        ByteBuffer ack = ByteBuffer.allocate(4 + tkl);
        ack.put((byte) (0x60 | tkl)).put((byte) 0x45).putShort(request.getShort(2));
        ack.put(request.array(), 4, tkl).flip();
        return ack;
    };

    /** Acknowledges every copy with an empty ACK (same MID) and never sends a response. */
    static final Script EMPTY_ACK = (request, copy) -> {
        ByteBuffer ack = ByteBuffer.allocate(4);
        ack.put((byte) 0x60).put((byte) 0).putShort(request.getShort(2)).flip();
        return ack;
    };

    private final DatagramChannel channel;
    private final Selector selector;
    private final Script script;
    private final NamedThreadFactory threads = new NamedThreadFactory("test-scripted-peer", true);
    private final ByteBuffer rx = ByteBuffer.allocate(2048);
    private final Map<Long, Integer> copies = new HashMap<>();
    private final Map<Long, Set<Integer>> tokens = new HashMap<>();
    private long answered;

    private ScriptedPeer(DatagramChannel channel, Selector selector, Script script) {
        this.channel = channel;
        this.selector = selector;
        this.script = script;
    }

    static ScriptedPeer start(Script script) throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ch.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
        ch.configureBlocking(false);
        Selector sel = Selector.open();
        ch.register(sel, SelectionKey.OP_READ);
        ScriptedPeer peer = new ScriptedPeer(ch, sel, script);
        peer.threads.newThread(peer::serve).start();
        return peer;
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    /** Distinct requests (client port, MID) that arrived so far. */
    synchronized long requests() {
        handleArrived();
        return copies.size();
    }

    /** The most copies of one request that arrived so far. */
    synchronized int mostCopies() {
        handleArrived();
        return copies.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** Replies sent so far. */
    synchronized long answered() {
        handleArrived();
        return answered;
    }

    /** Whether all copies of each request carried the same token. */
    synchronized boolean oneTokenPerRequest() {
        handleArrived();
        return tokens.values().stream().allMatch(t -> t.size() == 1);
    }

    synchronized String describe() {
        handleArrived();
        return copies.size() + " requests, " + answered + " replies; copies per (port << 16 | MID): " + copies;
    }

    private void serve() {
        try {
            while (channel.isOpen()) {
                selector.select();
                selector.selectedKeys().clear();
                synchronized (this) {
                    handleArrived();
                }
            }
        } catch (IOException | ClosedSelectorException | UncheckedIOException closed) {
            // close() ended the peer
        }
    }

    /** Records and answers every datagram waiting in the socket; call with the lock held. */
    private void handleArrived() {
        if (!channel.isOpen()) {
            return;
        }
        try {
            InetSocketAddress from;
            while ((from = (InetSocketAddress) channel.receive(rx.clear())) != null) {
                rx.flip();
                if (rx.remaining() < 8 || ((rx.get(0) >> 4) & 3) != 0) {
                    continue; // not a CON request with a 4-byte token
                }
                long key = (long) from.getPort() << 16 | (rx.getShort(2) & 0xFFFF);
                int copy = copies.merge(key, 1, Integer::sum);
                tokens.computeIfAbsent(key, k -> new HashSet<>()).add(rx.getInt(4));
                ByteBuffer reply = script.answer(rx, copy);
                if (reply != null) {
                    channel.send(reply, from);
                    answered++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            channel.close();
        }
        selector.close();
        threads.joinAll(Duration.ofSeconds(2));
    }
}
