package io.stagecoach.elements.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Socket;
import io.netty.util.ReferenceCountUtil;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.PeerContexts;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel of a {@link NettyUdpConnector} and what only its event loop touches: its inbound
 * handler, whether a read batch is being delivered, and the answers written during that batch.
 *
 * <p>Answers sent from the loop while it delivers a read batch are written without a flush; the
 * whole batch leaves with one flush at {@code channelReadComplete} (one {@code sendmmsg} on epoll),
 * or as soon as {@code udp.batch-size} answers wait, since one read may hold several batches.
 * Datagrams without a callback are written with the channel's void promise, so an answer costs no
 * promise and no listener: they are confirmed (counted as sent, given back to the queue bound)
 * once the channel's outbound buffer is empty after a flush. Until then they keep their place, so
 * the bound never counts fewer datagrams than wait.
 */
final class Shard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(NettyUdpConnector.class);

    private final UdpConnectorConfig config;
    private final ConnectorCounters counters;
    private final Supplier<RawDataReceiver> receiver;
    private final Runnable onLoop;
    private final LogThrottle failureLog;
    private final LogThrottle errorLog;
    private final LogThrottle sendErrorLog;
    /** Datagrams handed to this channel and not yet known written: the outbound queue bound. */
    final AtomicInteger queued = new AtomicInteger();

    private Channel channel;
    /** The epoll channel's socket, for {@link #sendHere} from other threads; {@code null} on NIO. */
    private volatile Socket socket;
    // event loop only
    private PacketSlots slots;
    /** The datagram being delivered, lent to the receiver (RawDataReceiver.receiveDatagram). */
    private final byte[] lent;
    /** Peers whose context is reused (PeerContexts): 64 KiB of slots per channel. */
    private final PeerContexts contexts = new PeerContexts(PeerContexts.DEFAULT_SLOTS);
    private boolean reading;
    /** Answers written since the last flush. */
    private int unflushed;
    private int unconfirmed;
    private int failedUnconfirmed;

    /**
     * @param onLoop run once on the channel's event loop when it is registered, so that the
     *               connector can recognise the loop's thread
     */
    Shard(UdpConnectorConfig config, ConnectorCounters counters, Supplier<RawDataReceiver> receiver, Runnable onLoop) {
        this.config = config;
        this.counters = counters;
        this.receiver = receiver;
        this.onLoop = onLoop;
        this.failureLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.errorLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.sendErrorLog = new LogThrottle(config.clock(), Duration.ofSeconds(10));
        this.lent = new byte[config.maxDatagramSize()];
    }

    Channel channel() {
        return channel;
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        socket = channel instanceof EpollDatagramChannel epoll ? (Socket) epoll.fd() : null;
        slots = new PacketSlots(channel.alloc(), config.batchSize(), config.maxDatagramSize());
        onLoop.run();
        ctx.fireChannelRegistered();
    }

    @Override
    public void channelUnregistered(ChannelHandlerContext ctx) {
        // closed: the channel has released the packets it still held, the slots' buffers go back
        slots.release();
        ctx.fireChannelUnregistered();
    }

    /**
     * Event loop only: writes the bytes of {@code datagram} (at most {@code udp.max-datagram-size})
     * to {@code recipient} from a reused packet, with no callback; it leaves with the batch.
     */
    void writeOnLoop(ByteBuffer datagram, InetSocketAddress recipient) {
        writeOnLoop(slots.fill(datagram, recipient), null);
    }

    /** Event loop only: as {@link #writeOnLoop(ByteBuffer, InetSocketAddress)} for {@code data}'s bytes. */
    void writeOnLoop(RawData data) {
        DatagramPacket packet = slots.fill(data.sharedBytes(), data.context().peer());
        writeOnLoop(packet, data.callback() == null ? null : data);
    }

    /**
     * Event loop only: writes an answer; it leaves with the batch, or now outside a batch.
     * {@code data} is told the outcome; {@code null} for a datagram without a callback.
     */
    private void writeOnLoop(DatagramPacket packet, RawData data) {
        if (data == null) {
            channel.write(packet, channel.voidPromise());
            unconfirmed++;
        } else {
            channel.write(packet).addListener(f -> done(f.isSuccess(), f.cause(), data));
        }
        // Netty's edge-triggered read loop may call recvmmsg again before channelReadComplete, so
        // a read can deliver more than one batch: flush each batch-size of answers at once, which
        // keeps one sendmmsg per batch and never holds more answers than a batch unflushed
        if (reading && ++unflushed < config.batchSize()) {
            return;
        }
        flushAndConfirm();
    }

    /**
     * Any thread: writes {@code data} now with one {@code sendto} on this channel's socket, through
     * {@code buffer} (direct, at least {@code udp.max-datagram-size} bytes).
     *
     * @return {@code false} if nothing was written: no epoll socket, closed, or its send buffer is
     *         full ({@code EAGAIN}); the caller hands the datagram to the event loop instead
     * @throws IOException the kernel refused the datagram
     */
    boolean sendHere(RawData data, ByteBuffer buffer) throws IOException {
        Socket s = socket;
        if (s == null || !s.isOpen()) {
            return false;
        }
        InetSocketAddress to = data.context().peer();
        buffer.clear();
        buffer.put(data.sharedBytes(), 0, data.size());
        return s.sendTo(buffer, 0, data.size(), to.getAddress(), to.getPort()) > 0;
    }

    /** Any thread: writes and flushes (Netty hands it to the event loop). */
    void writeFromElsewhere(DatagramPacket packet, RawData data) {
        channel.writeAndFlush(packet).addListener(f -> done(f.isSuccess(), f.cause(), data));
    }

    private void done(boolean success, Throwable cause, RawData data) {
        queued.decrementAndGet();
        if (success) {
            counters.incrementSent();
            data.notifySent();
        } else {
            counters.incrementSendErrors();
            NettyUdpConnector.notifyFailed(data, cause, channel.isActive());
        }
    }

    private void flushAndConfirm() {
        unflushed = 0;
        channel.flush();
        if (unconfirmed > 0) {
            ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
            if (out == null || out.isEmpty()) {
                // written, or failed and counted in exceptionCaught: give the places back
                counters.addSent(Math.max(0, unconfirmed - failedUnconfirmed));
                queued.addAndGet(-unconfirmed);
                unconfirmed = 0;
                failedUnconfirmed = 0;
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket packet)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        reading = true;
        long nanos = config.clock().nanoTime();
        try {
            ByteBuf content = packet.content();
            int len = content.readableBytes();
            if (len > config.maxDatagramSize()) {
                counters.incrementDroppedOversize();
                return;
            }
            content.getBytes(content.readerIndex(), lent, 0, len);
            counters.incrementReceived();
            deliver(len, contexts.of(packet.sender()), nanos);
        } finally {
            packet.release();
        }
    }

    private void deliver(int length, EndpointContext sender, long nanos) {
        try {
            receiver.get().receiveDatagram(lent, 0, length, sender, nanos);
        } catch (RuntimeException e) {
            long held = failureLog.tryAcquire();
            if (held >= 0) {
                LOG.warn("RawDataReceiver threw on datagram from {} ({} more since the last report)",
                        sender.peer(), held, e);
            }
        } catch (Error e) {
            // UdpConnector replaces a receive thread that dies of an Error. An event loop also sends
            // and may serve other channels, so it must not die: the Error ends this datagram only.
            // Counted as a restart so that both connectors report the same supervision count.
            counters.incrementReceiverRestarts();
            long held = errorLog.tryAcquire();
            if (held >= 0) {
                LOG.error("RawDataReceiver threw an Error on datagram from {}; the event loop carries on"
                        + " ({} more since the last report)", sender.peer(), held, e);
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        if (unflushed > 0 || unconfirmed > 0) {
            flushAndConfirm(); // the batch's answers: one sendmmsg on epoll
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // a failed write with the void promise lands here: counted, and reported once per period
        counters.incrementSendErrors();
        if (unconfirmed > 0) {
            failedUnconfirmed++;
        }
        long held = sendErrorLog.tryAcquire();
        if (held >= 0) {
            LOG.warn("error on {} ({} more since the last report)", ctx.channel(), held, cause);
        }
    }
}
