package io.stagecoach.bench.scenario;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * One host flooding the server: {@code ports} UDP sockets bound to one address (the attacker's
 * host), sending datagrams round-robin over the sockets as fast as the sending threads can, until
 * {@link #stop()} or until {@code limitNanos} of real time have passed, whichever comes first: the
 * flood ends by itself. What the server answers is not read (an attacker does not need to).
 * Threads are named {@code bench-flood-attacker-N}; {@link #stop()} joins them and closes every
 * socket.
 */
final class DatagramFlood {

    /** Writes datagram number {@code seq} of socket {@code socket} into {@code buf} (cleared, then flipped). */
    @FunctionalInterface
    interface Payload {
        void write(ByteBuffer buf, int socket, long seq);
    }

    /** What a flood sent: datagrams, bytes, over how many real seconds, from how many ports. */
    record Sent(long datagrams, long bytes, double seconds, int ports, int threads) {
        double rate() {
            return seconds > 0 ? datagrams / seconds : 0;
        }
    }

    private final List<DatagramChannel> channels = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder datagrams = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final long startNanos;
    private final long limitNanos;
    private volatile boolean running = true;
    private volatile long endNanos;
    private volatile Throwable failure;

    private DatagramFlood(long limitNanos) {
        this.startNanos = System.nanoTime();
        this.limitNanos = limitNanos;
    }

    /**
     * Binds {@code ports} sockets on {@code from} (ephemeral ports), connects them to
     * {@code server} and starts {@code threadCount} senders, each over its share of the sockets.
     */
    static DatagramFlood start(InetAddress from, InetSocketAddress server, int ports, int threadCount,
            long limitNanos, Payload payload) throws IOException {
        DatagramFlood f = new DatagramFlood(limitNanos);
        try {
            for (int i = 0; i < ports; i++) {
                DatagramChannel ch = DatagramChannel.open();
                f.channels.add(ch);
                ch.bind(new InetSocketAddress(from, 0));
                ch.connect(server);
            }
        } catch (IOException e) {
            f.closeChannels();
            throw new IOException("could not bind " + ports + " sockets on " + from.getHostAddress() + ": " + e, e);
        }
        int n = Math.max(1, Math.min(threadCount, ports));
        for (int t = 0; t < n; t++) {
            int first = t;
            Thread thread = new Thread(() -> f.send(first, n, payload), "bench-flood-attacker-" + t);
            thread.setDaemon(true);
            f.threads.add(thread);
        }
        f.threads.forEach(Thread::start);
        return f;
    }

    private void send(int first, int stride, Payload payload) {
        ByteBuffer buf = ByteBuffer.allocateDirect(2_048);
        long seq = 0;
        long sentHere = 0;
        long bytesHere = 0;
        try {
            while (running) {
                for (int i = first; i < channels.size(); i += stride) {
                    payload.write(buf, i, seq);
                    int len = buf.remaining();
                    try {
                        if (channels.get(i).write(buf) > 0) {
                            sentHere++;
                            bytesHere += len;
                        }
                    } catch (IOException e) {
                        // ICMP port unreachable from an earlier datagram, or the server is gone: go on
                    }
                }
                seq++;
                if ((seq & 63) == 0) {
                    datagrams.add(sentHere);
                    bytes.add(bytesHere);
                    sentHere = 0;
                    bytesHere = 0;
                    if (System.nanoTime() - startNanos >= limitNanos) {
                        running = false;
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            datagrams.add(sentHere);
            bytes.add(bytesHere);
            endNanos = System.nanoTime();
        }
    }

    /** Datagrams sent so far (updated every 64 rounds). */
    long datagrams() {
        return datagrams.sum();
    }

    /** Stops sending (if it has not stopped by itself), joins the threads, closes the sockets. */
    Sent stop() throws InterruptedException, IOException {
        running = false;
        for (Thread t : threads) {
            t.join(10_000);
        }
        closeChannels();
        if (failure != null) {
            throw new IOException("flood sender failed: " + failure, failure);
        }
        long end = endNanos == 0 ? System.nanoTime() : endNanos;
        return new Sent(datagrams.sum(), bytes.sum(), (end - startNanos) / 1e9, channels.size(), threads.size());
    }

    private void closeChannels() {
        for (DatagramChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing to do about a socket that does not close
            }
        }
    }
}
