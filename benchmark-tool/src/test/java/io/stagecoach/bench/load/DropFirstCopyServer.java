package io.stagecoach.bench.load;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A test server that loses every request's first transmission: it answers a CON request with a
 * piggybacked ACK 2.05 (same MID and token, RFC 7252 §5.2.1) only when the same client sends the
 * same MID again, so only a retransmitting client completes anything.
 */
final class DropFirstCopyServer implements AutoCloseable {

    private final DatagramChannel channel;
    private final NamedThreadFactory threads = new NamedThreadFactory("test-drop-first", true);
    private final Map<Long, Integer> copies = new HashMap<>();
    private volatile long dropped;
    private volatile long answered;
    private volatile int maxCopies;

    private DropFirstCopyServer(DatagramChannel channel) {
        this.channel = channel;
    }

    static DropFirstCopyServer start() throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        DropFirstCopyServer s = new DropFirstCopyServer(ch);
        s.threads.newThread(s::serve).start();
        return s;
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    long dropped() {
        return dropped;
    }

    long answered() {
        return answered;
    }

    /** The most copies of one (client, MID) seen. */
    int maxCopies() {
        return maxCopies;
    }

    private void serve() {
        ByteBuffer rx = ByteBuffer.allocate(2048);
        try {
            while (true) {
                rx.clear();
                InetSocketAddress from = (InetSocketAddress) channel.receive(rx);
                rx.flip();
                if (rx.remaining() < 8 || ((rx.get(0) >> 4) & 3) != 0) {
                    continue; // not a CON request with a 4-byte token
                }
                int mid = rx.getShort(2) & 0xFFFF;
                int n = copies.merge((long) from.getPort() << 16 | mid, 1, Integer::sum);
                maxCopies = Math.max(maxCopies, n);
                if (n == 1) {
                    dropped++;
                    continue;
                }
                int tkl = rx.get(0) & 0x0F;
                ByteBuffer ack = ByteBuffer.allocate(4 + tkl);
                ack.put((byte) (0x60 | tkl)).put((byte) 0x45).putShort((short) mid);
                ack.put(rx.array(), 4, tkl).flip();
                channel.send(ack, from);
                answered++;
            }
        } catch (ClosedChannelException e) {
            // closed by close(): done
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
        threads.joinAll(Duration.ofSeconds(2));
    }
}
