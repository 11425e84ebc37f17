package io.stagecoach.elements.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.stagecoach.elements.FramingException;
import io.stagecoach.elements.StreamFramer;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of every connection's pipeline: when the connection can carry data (at once
 * for TCP, after the TLS or WebSocket handshake), its frames (cut by the endpoint's framer from
 * a stream, or whole WebSocket binary messages), other HTTP requests, its end.
 */
final class ConnectionInbound extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);

    private final NettyTcpConnector connector;
    private final TcpConnection c;
    private final TcpConnectorConfig config;

    ConnectionInbound(NettyTcpConnector connector, TcpConnection c) {
        this.connector = connector;
        this.c = c;
        this.config = connector.config();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!config.transport().isSecure() && !config.transport().isWebSocket()) {
            connector.ready(c);
        }
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent hs) {
            if (!hs.isSuccess()) {
                LOG.debug("TLS handshake with {} failed: {}", c.peer, String.valueOf(hs.cause()));
                ctx.close();
            } else if (!config.transport().isWebSocket()) {
                connector.ready(c);
            }
        } else if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete
                || evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
            connector.ready(c);
        } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT
                || evt == WebSocketServerProtocolHandler.ServerHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
            ctx.close();
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        c.reading = true; // until channelReadComplete: writes of this loop wait for one flush
        NettyTcpConnector.reading(c);
        try {
            if (msg instanceof ByteBuf buf) {
                readStream(ctx, buf);
            } else if (msg instanceof BinaryWebSocketFrame frame) {
                if (c.ready) {
                    c.frames.accept(ByteBufUtil.getBytes(frame.content()));
                }
            } else if (msg instanceof WebSocketFrame) {
                // text messages carry no CoAP (RFC 8323 §4.2); close, ping and pong are Netty's
                connector.closeAfterWrites(c, WebSocketCloseStatus.INVALID_MESSAGE_TYPE);
            } else if (msg instanceof FullHttpRequest request) {
                HttpReplies.serve(ctx, request, config.httpResponder());
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The end of a read batch: one flush for every answer written during it. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        c.reading = false;
        NettyTcpConnector.readDone();
        if (c.flushPending) {
            c.flushPending = false;
            ctx.flush();
        }
        super.channelReadComplete(ctx);
    }

    private void readStream(ChannelHandlerContext ctx, ByteBuf buf) {
        if (c.failed) {
            return;
        }
        if (!c.openedCalled) {
            connector.ready(c);
        }
        StreamFramer framer = c.framer;
        if (framer == null) {
            return;
        }
        try {
            if (buf.nioBufferCount() == 1) {
                // the buffer's own cached view: nioBuffer() would allocate a duplicate per read
                // (7 % of the event loop's Java time at 70k frames/s); the framer copies what it keeps
                framer.read(buf.internalNioBuffer(buf.readerIndex(), buf.readableBytes()), c.frames);
            } else {
                for (ByteBuffer b : buf.nioBuffers()) {
                    framer.read(b, c.frames);
                }
            }
        } catch (FramingException e) {
            c.failed = true;
            connector.abortedByFramer();
            LOG.debug("closing {}: {}", c, e.getMessage());
            byte[] last = e.lastWords();
            if (last != null) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(last)).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.close();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connector.ended(c);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing {} after an error: {}", c, cause.toString());
        ctx.close();
    }
}
