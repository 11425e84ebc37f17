package io.stagecoach.elements.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;

/**
 * Writes the frames of a {@link NettyTcpConnector} on their connection's channel, from any
 * thread: refused with {@link Reason#QUEUE_FULL} above the connection's outbound buffer; written
 * without a flush while the connection's read batch runs on this thread (the batch's end flushes
 * them once); with a promise and a listener only when the frame has a callback to tell.
 */
final class ConnectionOutbound {

    private final NettyTcpConnector connector;
    private final TcpConnectorConfig config;
    private final ConnectorCounters counters;

    ConnectionOutbound(NettyTcpConnector connector, TcpConnectorConfig config, ConnectorCounters counters) {
        this.connector = connector;
        this.config = config;
        this.counters = counters;
    }

    /** Writes {@code data} on {@code c}, which is ready (or greeting, from its event loop). */
    void write(TcpConnection c, RawData data) {
        Channel ch = c.channel;
        if (!ch.isWritable() && ch.bytesBeforeWritable() > 0 && ch.isActive()) {
            counters.incrementDroppedQueueFull();
            data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL, "more than " + config.outboundBuffer()
                    + " bytes waiting for " + c.peer));
            return;
        }
        ByteBuf buf;
        if (config.transport().isSecure()) {
            buf = Unpooled.wrappedBuffer(data.sharedBytes()); // no copy: TLS encrypts it into its own buffer
        } else {
            // the socket writes from direct memory: copied once into a pooled direct buffer here,
            // instead of wrapped and then copied by the channel (a wrapper less per frame)
            byte[] bytes = data.sharedBytes();
            buf = ch.alloc().directBuffer(bytes.length, bytes.length).writeBytes(bytes);
        }
        Object msg = config.transport().isWebSocket() ? new BinaryWebSocketFrame(buf) : buf;
        boolean batched = c.reading && ch.eventLoop().inEventLoop();
        if (data.callback() == null && ch.isActive()) {
            // nobody waits to hear of this write: no promise and no listener per frame; a write
            // that fails on an open channel fails the channel (exceptionCaught closes it)
            counters.incrementSent();
            if (batched) {
                ch.write(msg, ch.voidPromise());
                c.flushPending = true;
            } else {
                ch.writeAndFlush(msg, ch.voidPromise());
            }
            return;
        }
        ChannelFuture written;
        if (batched) {
            // an answer sent while its request's read batch runs: flushed once at the batch's end
            written = ch.write(msg);
            c.flushPending = true;
        } else {
            written = ch.writeAndFlush(msg);
        }
        written.addListener(f -> {
            if (f.isSuccess()) {
                counters.incrementSent();
                data.notifySent();
            } else {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(connector.isRunning() ? Reason.IO_ERROR : Reason.STOPPED,
                        String.valueOf(f.cause()), f.cause()));
            }
        });
    }
}
