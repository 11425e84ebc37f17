package io.stagecoach.elements.tcp;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * The WebSocket handlers of coap+ws and coaps+ws (RFC 8323 §4): the HTTP/1.1 upgrade on
 * {@value TcpConnectorConfig#WEBSOCKET_PATH} with subprotocol {@code coap}, then whole binary
 * messages up to the maximum message size (fragments joined). A server passes HTTP requests for
 * other paths on to the connection's handler (its {@link HttpResponder}).
 */
final class WebSocketSetup {

    /** Request heads and bodies of the upgrade (and of other HTTP requests) stay below this. */
    private static final int MAX_HTTP_REQUEST = 8192;

    private WebSocketSetup() {
    }

    static void addHandlers(ChannelPipeline p, TcpConnectorConfig config, InetSocketAddress peer) {
        int max = config.maxMessageSize();
        long handshake = config.handshakeTimeout().toMillis();
        if (config.isClient()) {
            String host = peer.getAddress() instanceof Inet6Address ? "[" + peer.getHostString() + "]"
                    : peer.getHostString();
            URI uri = URI.create((config.transport().isSecure() ? "wss://" : "ws://") + host + ":" + peer.getPort()
                    + TcpConnectorConfig.WEBSOCKET_PATH);
            p.addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_HTTP_REQUEST));
            p.addLast(new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.newBuilder()
                    .webSocketUri(uri).version(WebSocketVersion.V13).subprotocol(TcpConnectorConfig.PROTOCOL_NAME)
                    .maxFramePayloadLength(max).handshakeTimeoutMillis(handshake)
                    .customHeaders(new DefaultHttpHeaders()).dropPongFrames(true).build()));
        } else {
            p.addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_HTTP_REQUEST));
            p.addLast(new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                    .websocketPath(TcpConnectorConfig.WEBSOCKET_PATH).subprotocols(TcpConnectorConfig.PROTOCOL_NAME)
                    .maxFramePayloadLength(max).handshakeTimeoutMillis(handshake)
                    .checkStartsWith(false).allowExtensions(false).dropPongFrames(true).build()));
        }
        p.addLast(new WebSocketFrameAggregator(max));
    }
}
