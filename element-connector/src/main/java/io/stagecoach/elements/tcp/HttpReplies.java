package io.stagecoach.elements.tcp;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the plain HTTP requests that reach a WebSocket server on other paths than CoAP's,
 * through the configured {@link HttpResponder}: its reply, 404 without one or when it has
 * none, 500 when it throws. Keep-alive as the request asks.
 */
final class HttpReplies {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);
    private static final String TEXT = "text/plain; charset=utf-8";

    private HttpReplies() {
    }

    static void serve(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponder responder) {
        HttpResponder.Reply reply = null;
        if (responder != null) {
            try {
                reply = responder.respond(request.method().name(), request.uri());
            } catch (RuntimeException e) {
                LOG.warn("HttpResponder threw on {} {}", request.method(), request.uri(), e);
                reply = new HttpResponder.Reply(500, TEXT, new byte[0]);
            }
        }
        if (reply == null) {
            reply = new HttpResponder.Reply(404, TEXT, "Not Found\n".getBytes(StandardCharsets.UTF_8));
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(reply.status()), Unpooled.wrappedBuffer(reply.body()));
        reply.headers().forEach(response.headers()::set);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        HttpUtil.setContentLength(response, reply.body().length);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ChannelFuture f = ctx.writeAndFlush(response);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }
}
