package io.stagecoach.elements.tcp;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a connection's pipeline for its transport: TLS ({@link TlsSetup}) for the secure ones,
 * the WebSocket handlers ({@link WebSocketSetup}) for coap+ws and coaps+ws, then
 * {@link ConnectionInbound}. A server's instance first admits the accepted connection or
 * closes it at once, before any handshake, when a connection limit is reached.
 */
final class ConnectionInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTcpConnector.class);

    private final NettyTcpConnector connector;
    private final TcpConnectorConfig config;
    private final ConnectionRegistry registry;
    private final TlsSetup tls;
    /** A client's connection, made before connecting; {@code null} for a server's initializer. */
    private final TcpConnection client;

    private ConnectionInitializer(NettyTcpConnector connector, ConnectionRegistry registry, TlsSetup tls,
            TcpConnection client) {
        this.connector = connector;
        this.config = connector.config();
        this.registry = registry;
        this.tls = tls;
        this.client = client;
    }

    /** A server's: admits each accepted connection or refuses it. */
    static ConnectionInitializer server(NettyTcpConnector connector, ConnectionRegistry registry, TlsSetup tls) {
        return new ConnectionInitializer(connector, registry, tls, null);
    }

    /** A client's, for the connection {@code c} it is opening. */
    static ConnectionInitializer client(NettyTcpConnector connector, TlsSetup tls, TcpConnection c) {
        return new ConnectionInitializer(connector, null, tls, c);
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (client != null) {
            initPipeline(ch, client);
            return;
        }
        InetSocketAddress peer = ch.remoteAddress();
        ConnectionRegistry.Slot slot = registry.count(peer, config.maxConnections(), config.maxConnectionsPerAddress());
        boolean admitted = connector.isRunning() && slot.withinLimits;
        ch.closeFuture().addListener(f -> slot.release());
        if (!admitted) {
            connector.refused();
            LOG.debug("refused a connection from {}: connection limit", peer);
            ch.close();
            return;
        }
        connector.accepted();
        TcpConnection c = connector.newConnection(peer);
        c.channel = ch;
        registry.add(c);
        initPipeline(ch, c);
    }

    private void initPipeline(SocketChannel ch, TcpConnection c) {
        c.channel = ch;
        ChannelPipeline p = ch.pipeline();
        if (config.transport().isSecure()) {
            p.addLast("tls", tls.handler(ch, c.peer));
        }
        if (config.transport().isWebSocket()) {
            WebSocketSetup.addHandlers(p, config, c.peer);
        }
        p.addLast("coap", new ConnectionInbound(connector, c));
    }
}
