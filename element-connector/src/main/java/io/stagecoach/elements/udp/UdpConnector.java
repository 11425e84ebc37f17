package io.stagecoach.elements.udp;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.PeerContexts;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.elements.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UDP connector on the JDK: one blocking {@link DatagramChannel}, {@code receiverThreads}
 * threads that each block in {@code receive} and hand datagrams to the {@link RawDataReceiver},
 * and {@code senderThreads} threads draining a bounded outbound queue. A datagram sent from one
 * of this connector's own receive threads — the protocol stage running inline, answering the
 * datagram it was handed — skips the queue and is written at once.
 *
 * <p>Threads are named {@code stagecoach-udp-recv-N} and {@code stagecoach-udp-send-N}. Receiver
 * threads share the channel (the JDK serialises the {@code receive} system calls); with more than
 * one, one thread processes a datagram while another waits in the kernel. See
 * {@code docs/network-stage.md} for the defaults and measurements.
 *
 * <p>A receive thread that dies (the receiver threw an {@link Error}) is replaced while the
 * connector runs; see {@link ConnectorCounters#receiverRestarts()}.
 */
public final class UdpConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(UdpConnector.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);
    /** The connector whose receive loop runs on this thread, if any. */
    private static final ThreadLocal<UdpConnector> RECEIVE_THREAD_OF = new ThreadLocal<>();

    private enum State { NEW, RUNNING, STOPPED, DESTROYED }

    private final UdpConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final Object lifecycle = new Object();
    /** One stack trace per 10 s for receiver failures; all are counted (ConnectorCounters). */
    private final LogThrottle failureLog;
    private final LogThrottle interruptLog;
    private final LogThrottle deathLog;

    private volatile RawDataReceiver receiver = data -> { };
    private volatile State state = State.NEW;
    private volatile DatagramChannel channel;
    private volatile BlockingQueue<RawData> outbound;
    private volatile InetSocketAddress boundAddress;
    private NamedThreadFactory threadFactory;
    private final List<Thread> threads = new ArrayList<>();

    UdpConnector(UdpConnectorConfig config) {
        this.config = config;
        this.boundAddress = config.bindAddress();
        this.failureLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.interruptLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.deathLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
    }

    public static UdpConnectorConfig.Builder builder() {
        return UdpConnectorConfig.builder();
    }

    /** The settings this connector was built with. */
    public UdpConnectorConfig config() {
        return config;
    }

    @Override
    public void start() throws IOException {
        synchronized (lifecycle) {
            if (state == State.RUNNING) {
                return;
            }
            if (state == State.DESTROYED) {
                throw new IllegalStateException("connector destroyed");
            }
            // the bind address's family: an IPv4 address gets an IPv4 socket, not a dual-stack one
            DatagramChannel ch = BindFamily.open(config.bindAddress());
            try {
                if (config.receiveBufferSize() > 0) {
                    ch.setOption(StandardSocketOptions.SO_RCVBUF, config.receiveBufferSize());
                }
                if (config.sendBufferSize() > 0) {
                    ch.setOption(StandardSocketOptions.SO_SNDBUF, config.sendBufferSize());
                }
                ch.bind(config.bindAddress());
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            channel = ch;
            boundAddress = (InetSocketAddress) ch.getLocalAddress();
            outbound = new ArrayBlockingQueue<>(config.outboundQueueCapacity());
            threadFactory = new NamedThreadFactory("udp", true);
            synchronized (threads) {
                for (int i = 0; i < config.receiverThreads(); i++) {
                    threads.add(named(threadFactory.newThread(new Receive(ch)), "recv"));
                }
                for (int i = 0; i < config.senderThreads(); i++) {
                    threads.add(named(threadFactory.newThread(new Send(ch, outbound)), "send"));
                }
                state = State.RUNNING;
                threads.forEach(Thread::start);
            }
            LOG.info("UDP connector bound to {} (rcvbuf {}, sndbuf {}, {} receiver / {} sender threads)",
                    boundAddress, ch.getOption(StandardSocketOptions.SO_RCVBUF),
                    ch.getOption(StandardSocketOptions.SO_SNDBUF), config.receiverThreads(),
                    config.senderThreads());
        }
    }

    @Override
    public void stop() {
        synchronized (lifecycle) {
            if (state != State.RUNNING) {
                return;
            }
            state = State.STOPPED;
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("closing {} failed", boundAddress, e);
            }
            synchronized (threads) {
                threads.forEach(Thread::interrupt);
            }
            if (!threadFactory.joinAll(JOIN_TIMEOUT)) {
                LOG.warn("connector threads still alive after stop: {}", threadFactory.liveThreads());
            }
            synchronized (threads) {
                threads.clear();
            }
            failQueued(outbound);
        }
    }

    @Override
    public void destroy() {
        synchronized (lifecycle) {
            stop();
            state = State.DESTROYED;
            receiver = data -> { };
        }
    }

    /** {@code stagecoach-udp-N} becomes {@code stagecoach-udp-recv-N} or {@code stagecoach-udp-send-N}. */
    private static Thread named(Thread t, String role) {
        t.setName(t.getName().replace("udp-", "udp-" + role + "-"));
        return t;
    }

    private void failQueued(BlockingQueue<RawData> queue) {
        List<RawData> left = new ArrayList<>();
        queue.drainTo(left);
        for (RawData d : left) {
            counters.incrementSendErrors();
            d.notifyFailed(new SendFailedException(Reason.STOPPED, "connector stopped before sending"));
        }
    }

    @Override
    public void send(RawData data) {
        if (data.size() > config.maxDatagramSize()) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE,
                    data.size() + " bytes > maxDatagramSize " + config.maxDatagramSize()));
            return;
        }
        BlockingQueue<RawData> queue = outbound;
        if (state != State.RUNNING || queue == null) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        if (RECEIVE_THREAD_OF.get() == this) {
            // Direct send from our own receive thread: DatagramChannel.send is thread-safe and does
            // not wait for the receive lock. Saves the hand-off to a sender thread: one context
            // switch per answer on a single core (docs/benchmarks.md).
            transmitHere(channel, data);
            return;
        }
        if (!queue.offer(data)) {
            counters.incrementDroppedQueueFull();
            data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL,
                    "outbound queue full (" + config.outboundQueueCapacity() + ")"));
            return;
        }
        if (state != State.RUNNING) {
            // raced with stop(): the senders may already be gone
            failQueued(queue);
        }
    }

    /**
     * Writes {@code data} on the calling thread, skipping the outbound queue and its sender
     * thread, as {@link #send} does on this connector's own receive threads. For a caller that
     * owns a few threads of its own whose every datagram would otherwise cost a hand-off (a
     * thread switch on a single core) while a peer waits for it: a DTLS handshake's flights. The
     * caller blocks while the socket's send buffer is full; a caller whose datagrams can wait
     * uses {@link #send}.
     */
    @Override
    public void sendDirect(RawData data) {
        if (data.size() > config.maxDatagramSize()) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE,
                    data.size() + " bytes > maxDatagramSize " + config.maxDatagramSize()));
            return;
        }
        DatagramChannel ch = channel;
        if (state != State.RUNNING || ch == null) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        transmitHere(ch, data);
    }

    /**
     * The caller's thread may carry an interrupt flag (a handler running inline left it, or a
     * pool is shutting down); a blocking send would then close the channel for everyone
     * (InterruptibleChannel), so the flag is held back during the send and restored after.
     */
    private void transmitHere(DatagramChannel ch, RawData data) {
        boolean interrupted = Thread.interrupted();
        transmit(ch, data);
        if (interrupted) {
            Thread.currentThread().interrupt(); // the receive loop clears and reports it
        }
    }

    /**
     * On this connector's own receive thread (the protocol stage running inline) the buffer goes
     * to the socket directly, without a copy or a {@link RawData}; from any other thread it is
     * copied and queued like {@link #send(RawData)}.
     */
    @Override
    public void send(ByteBuffer datagram, EndpointContext destination) {
        if (RECEIVE_THREAD_OF.get() != this) {
            Connector.super.send(datagram, destination);
            return;
        }
        if (datagram.remaining() > config.maxDatagramSize()) {
            counters.incrementDroppedOversize();
            return;
        }
        DatagramChannel ch = channel;
        if (state != State.RUNNING || ch == null) {
            counters.incrementSendErrors();
            return;
        }
        boolean interrupted = Thread.interrupted(); // see transmitHere
        try {
            ch.send(datagram, destination.peer());
            counters.incrementSent();
        } catch (IOException | RuntimeException e) {
            counters.incrementSendErrors();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    /**
     * The value of {@code option} on the bound socket, as the operating system reports it (Linux
     * returns twice the SO_RCVBUF/SO_SNDBUF requested, capped by net.core.rmem_max/wmem_max).
     *
     * @throws IllegalStateException when the connector is not running
     */
    public <T> T socketOption(SocketOption<T> option) {
        DatagramChannel ch = channel;
        if (state != State.RUNNING || ch == null) {
            throw new IllegalStateException("connector not running: " + this);
        }
        try {
            return ch.getOption(option);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + option + " of " + boundAddress, e);
        }
    }

    @Override
    public InetSocketAddress getAddress() {
        return boundAddress;
    }

    @Override
    public String getProtocol() {
        return "UDP";
    }

    @Override
    public ConnectorCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "UdpConnector[" + boundAddress + ", " + state + "]";
    }

    private final class Receive implements Runnable {
        private final DatagramChannel ch;

        Receive(DatagramChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            RECEIVE_THREAD_OF.set(UdpConnector.this);
            try {
                receiveLoop();
            } catch (Throwable t) {
                // An Error from the receiver (or a bug here) ends this thread; the others keep going.
                replaceDeadReceiver(ch, t);
            }
        }

        private void receiveLoop() {
            Clock clock = config.clock();
            int max = config.maxDatagramSize();
            // one byte more than allowed: a datagram that fills it was too large (the kernel truncates)
            ByteBuffer buf = ByteBuffer.allocateDirect(max + 1);
            // the datagram's bytes are lent to the receiver from here (receiveDatagram): no array per datagram
            byte[] lent = new byte[max];
            PeerContexts contexts = new PeerContexts(PeerContexts.DEFAULT_SLOTS); // 64 KiB of slots per receive thread
            while (ch.isOpen()) {
                InetSocketAddress peer;
                try {
                    buf.clear();
                    peer = (InetSocketAddress) ch.receive(buf);
                } catch (ClosedChannelException e) {
                    if (state == State.RUNNING) {
                        LOG.error("channel {} closed while the connector runs ({}); no longer receiving",
                                boundAddress, e.toString());
                    }
                    return; // stop() closed it
                } catch (IOException e) {
                    LOG.warn("receive on {} failed", boundAddress, e);
                    continue;
                }
                long nanos = clock.nanoTime();
                buf.flip();
                if (buf.remaining() > max) {
                    counters.incrementDroppedOversize();
                    LOG.debug("dropped datagram from {} larger than {} bytes", peer, max);
                    continue;
                }
                int length = buf.remaining();
                buf.get(lent, 0, length);
                counters.incrementReceived();
                try {
                    receiver.receiveDatagram(lent, 0, length, contexts.of(peer), nanos);
                } catch (RuntimeException e) {
                    long held = failureLog.tryAcquire();
                    if (held >= 0) {
                        LOG.warn("RawDataReceiver threw on datagram from {} ({} more since the last report)",
                                peer, held, e);
                    }
                }
                if (Thread.interrupted() && state == State.RUNNING) {
                    // The receiver (a handler running inline) left the interrupt flag set: the next
                    // blocking receive would close the channel. stop() closes it before it
                    // interrupts, so clearing the flag here never hides a stop.
                    long held = interruptLog.tryAcquire();
                    if (held >= 0) {
                        LOG.warn("the receiver left the interrupt flag of {} set; cleared ({} more since the"
                                + " last report)", Thread.currentThread().getName(), held);
                    }
                }
            }
        }
    }

    /**
     * Supervision: a receive thread that died unexpectedly is replaced by a new one on the same
     * channel, counted in {@link ConnectorCounters#receiverRestarts()}. Not after stop(): the
     * state is checked under the same lock stop() takes to interrupt the threads, so no thread is
     * started that stop() would not join.
     */
    private void replaceDeadReceiver(DatagramChannel ch, Throwable cause) {
        synchronized (threads) {
            if (state != State.RUNNING || !ch.isOpen() || ch != channel) {
                LOG.warn("receive thread {} on {} died while stopping", Thread.currentThread().getName(),
                        boundAddress, cause);
                return;
            }
            Thread next = named(threadFactory.newThread(new Receive(ch)), "recv");
            threads.remove(Thread.currentThread()); // about to end: keep the list at the live threads
            threads.add(next);
            counters.incrementReceiverRestarts();
            long held = deathLog.tryAcquire();
            if (held >= 0) {
                LOG.error("receive thread {} on {} died; replaced by {} ({} more since the last report)",
                        Thread.currentThread().getName(), boundAddress, next.getName(), held, cause);
            }
            next.start();
        }
    }

    private final class Send implements Runnable {
        private final DatagramChannel ch;
        private final BlockingQueue<RawData> queue;

        Send(DatagramChannel ch, BlockingQueue<RawData> queue) {
            this.ch = ch;
            this.queue = queue;
        }

        @Override
        public void run() {
            while (ch.isOpen()) {
                RawData data;
                try {
                    data = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (!transmit(ch, data)) {
                    return;
                }
            }
        }
    }

    /** Writes one datagram and notifies it; {@code false} once the channel is closed. */
    private boolean transmit(DatagramChannel ch, RawData data) {
        try {
            ch.send(data.buffer(), data.context().peer());
            counters.incrementSent();
            data.notifySent();
            return true;
        } catch (ClosedChannelException e) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "channel closed", e));
            return false;
        } catch (IOException | RuntimeException e) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.IO_ERROR, e.toString(), e));
            return true;
        }
    }
}
