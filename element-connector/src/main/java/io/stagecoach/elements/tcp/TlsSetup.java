package io.stagecoach.elements.tcp;

import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * TLS of the secure transports: the JDK provider, TLS 1.3 and 1.2, ALPN {@code coap} for
 * coaps+tcp (RFC 8323 §3.4); a server with trusted certificates requires and verifies client
 * certificates; a client verifies the server's name unless told not to.
 */
final class TlsSetup {

    private final TcpConnectorConfig config;
    private final SslContext context;

    private TlsSetup(TcpConnectorConfig config, SslContext context) {
        this.config = config;
        this.context = context;
    }

    /** The TLS context of {@code config}'s credentials. */
    static TlsSetup of(TcpConnectorConfig config) throws IOException {
        TlsCredentials cred = config.credentials();
        SslContextBuilder b;
        if (config.isClient()) {
            b = SslContextBuilder.forClient();
            if (cred.key() != null) {
                b.keyManager(cred.key(), cred.chain().toArray(new X509Certificate[0]));
            }
            if (cred.trusted() != null) {
                b.trustManager(cred.trusted().toArray(new X509Certificate[0]));
            }
        } else {
            b = SslContextBuilder.forServer(cred.key(), cred.chain().toArray(new X509Certificate[0]));
            if (cred.trusted() != null) {
                b.trustManager(cred.trusted().toArray(new X509Certificate[0]));
                b.clientAuth(ClientAuth.REQUIRE);
            }
        }
        b.sslProvider(SslProvider.JDK).protocols("TLSv1.3", "TLSv1.2");
        if (config.transport() == Transport.TLS) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    TcpConnectorConfig.PROTOCOL_NAME));
        }
        try {
            return new TlsSetup(config, b.build());
        } catch (SSLException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** The handler that runs TLS on {@code ch} with {@code peer} (a client: the server it connects to). */
    SslHandler handler(SocketChannel ch, InetSocketAddress peer) {
        SSLEngine engine = config.isClient()
                ? context.newEngine(ch.alloc(), peer.getHostString(), peer.getPort())
                : context.newEngine(ch.alloc());
        if (config.isClient() && config.credentials().verifiesHostname()) {
            SSLParameters params = engine.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(params);
        }
        SslHandler ssl = new SslHandler(engine);
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        return ssl;
    }
}
