package io.stagecoach.elements.tcp;

import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.time.Clock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * The validated settings of one {@link NettyTcpConnector}: transport, role, address, TLS
 * credentials and the limits of {@link TcpConfig}. Build with {@link NettyTcpConnector#builder}.
 */
public final class TcpConnectorConfig {

    /** The four connection transports of RFC 8323 and their URI schemes (§8). */
    public enum Transport {
        /** CoAP over TCP ({@code coap+tcp}, default port 5683). */
        TCP("coap+tcp", 5683, false, false),
        /** CoAP over TLS ({@code coaps+tcp}, default port 5684, ALPN {@code coap}). */
        TLS("coaps+tcp", 5684, true, false),
        /** CoAP over WebSockets ({@code coap+ws}, default port 80). */
        WS("coap+ws", 80, false, true),
        /** CoAP over secure WebSockets ({@code coaps+ws}, default port 443). */
        WSS("coaps+ws", 443, true, true);

        private final String scheme;
        private final int defaultPort;
        private final boolean secure;
        private final boolean webSocket;

        Transport(String scheme, int defaultPort, boolean secure, boolean webSocket) {
            this.scheme = scheme;
            this.defaultPort = defaultPort;
            this.secure = secure;
            this.webSocket = webSocket;
        }

        /**
         * The transport of a URI scheme ({@code coap+tcp}, {@code coaps+tcp}, {@code coap+ws},
         * {@code coaps+ws}), or {@code null} for any other.
         */
        public static Transport ofScheme(String scheme) {
            for (Transport t : values()) {
                if (t.scheme.equals(scheme)) {
                    return t;
                }
            }
            return null;
        }

        /** The URI scheme, e.g. {@code coap+tcp}. */
        public String scheme() {
            return scheme;
        }

        /** The default port of the scheme (RFC 8323 §8). */
        public int defaultPort() {
            return defaultPort;
        }

        public boolean isSecure() {
            return secure;
        }

        public boolean isWebSocket() {
            return webSocket;
        }
    }

    /** The path of the CoAP WebSocket endpoint (RFC 8323 §4.1). */
    public static final String WEBSOCKET_PATH = "/.well-known/coap";
    /** The TLS ALPN protocol ID (RFC 8323 §3.4) and WebSocket subprotocol (§4.1) of CoAP. */
    public static final String PROTOCOL_NAME = "coap";

    private final Transport transport;
    private final boolean client;
    private final InetSocketAddress bindAddress;
    private final TlsCredentials credentials;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;
    private final int maxMessageSize;
    private final Duration handshakeTimeout;
    private final int workerThreads;
    private final int outboundBuffer;
    private final boolean nativeTransport;
    private final boolean ioUring;
    private final HttpResponder httpResponder;
    private final Clock clock;

    private TcpConnectorConfig(Builder b) {
        this.transport = b.transport;
        this.client = b.client;
        this.bindAddress = b.bindAddress;
        this.credentials = b.credentials;
        this.maxConnections = b.maxConnections;
        this.maxConnectionsPerAddress = b.maxConnectionsPerAddress;
        this.maxMessageSize = b.maxMessageSize;
        this.handshakeTimeout = b.handshakeTimeout;
        this.workerThreads = b.workerThreads;
        this.outboundBuffer = b.outboundBuffer;
        this.nativeTransport = b.nativeTransport;
        this.ioUring = b.ioUring;
        this.httpResponder = b.httpResponder;
        this.clock = b.clock;
    }

    /** A builder with the defaults of {@link TcpConfig}: a coap+tcp server on port 5683. */
    public static Builder builder() {
        return new Builder();
    }

    public Transport transport() {
        return transport;
    }

    /** Whether the connector opens connections (client) rather than accepting them (server). */
    public boolean isClient() {
        return client;
    }

    /** Server: the listening address. Client: the local address to connect from (port 0: any). */
    public InetSocketAddress bindAddress() {
        return bindAddress;
    }

    /** TLS identity and trust; {@code null} for the plain transports. */
    public TlsCredentials credentials() {
        return credentials;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** Largest WebSocket message accepted (the stream framer bounds TCP frames). */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public int workerThreads() {
        return workerThreads;
    }

    public int outboundBuffer() {
        return outboundBuffer;
    }

    /** Whether a native Netty transport (epoll, or io_uring if {@link #ioUring()}) is used where available (else NIO). */
    public boolean nativeTransport() {
        return nativeTransport;
    }

    /** Whether the native transport is io_uring where available (else epoll), if {@link #nativeTransport()}. */
    public boolean ioUring() {
        return ioUring;
    }

    /** The WebSocket server's answer to other HTTP requests, or {@code null} (404). */
    public HttpResponder httpResponder() {
        return httpResponder;
    }

    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return transport.scheme() + (client ? " client " : " server ") + bindAddress;
    }

    /** Builds a {@link TcpConnectorConfig}; defaults from {@link TcpConfig}. */
    public static final class Builder {
        private Transport transport = Transport.TCP;
        private boolean client;
        private InetSocketAddress bindAddress;
        private TlsCredentials credentials;
        private int maxConnections = TcpConfig.MAX_CONNECTIONS.defaultValue();
        private int maxConnectionsPerAddress = TcpConfig.MAX_CONNECTIONS_PER_ADDRESS.defaultValue();
        private int maxMessageSize = TcpConfig.MAX_MESSAGE_SIZE.defaultValue();
        private Duration handshakeTimeout = TcpConfig.HANDSHAKE_TIMEOUT.defaultValue();
        private int workerThreads = TcpConfig.WORKER_THREADS.defaultValue();
        private int outboundBuffer = TcpConfig.OUTBOUND_BUFFER.defaultValue();
        private boolean nativeTransport = TcpConfig.NATIVE_TRANSPORT.defaultValue();
        private boolean ioUring = TcpConfig.IO_URING.defaultValue();
        private HttpResponder httpResponder;
        private Clock clock = Clock.system();

        Builder() {
        }

        /** Reads every {@code tcp.*} setting the connector uses from {@code config}. */
        public Builder apply(Configuration config) {
            maxConnections = config.get(TcpConfig.MAX_CONNECTIONS);
            maxConnectionsPerAddress = config.get(TcpConfig.MAX_CONNECTIONS_PER_ADDRESS);
            maxMessageSize = config.get(TcpConfig.MAX_MESSAGE_SIZE);
            handshakeTimeout = config.get(TcpConfig.HANDSHAKE_TIMEOUT);
            workerThreads = config.get(TcpConfig.WORKER_THREADS);
            outboundBuffer = config.get(TcpConfig.OUTBOUND_BUFFER);
            nativeTransport = config.get(TcpConfig.NATIVE_TRANSPORT);
            ioUring = config.get(TcpConfig.IO_URING);
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /** A client connector (connects on the first send to an address) instead of a server. */
        public Builder client(boolean client) {
            this.client = client;
            return this;
        }

        public Builder bindAddress(InetSocketAddress bindAddress) {
            this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
            return this;
        }

        /** Required for {@link Transport#TLS} and {@link Transport#WSS}. */
        public Builder credentials(TlsCredentials credentials) {
            this.credentials = credentials;
            return this;
        }

        public Builder maxConnections(int max) {
            this.maxConnections = positive(max, "maxConnections");
            return this;
        }

        public Builder maxConnectionsPerAddress(int max) {
            this.maxConnectionsPerAddress = positive(max, "maxConnectionsPerAddress");
            return this;
        }

        public Builder maxMessageSize(int max) {
            this.maxMessageSize = positive(max, "maxMessageSize");
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("handshakeTimeout must be positive, got " + timeout);
            }
            this.handshakeTimeout = timeout;
            return this;
        }

        public Builder workerThreads(int threads) {
            this.workerThreads = positive(threads, "workerThreads");
            return this;
        }

        public Builder outboundBuffer(int bytes) {
            this.outboundBuffer = positive(bytes, "outboundBuffer");
            return this;
        }

        /** {@code false} forces the JDK's NIO transport even where native epoll or io_uring is available. */
        public Builder nativeTransport(boolean nativeTransport) {
            this.nativeTransport = nativeTransport;
            return this;
        }

        /**
         * {@code true} runs on Netty's io_uring transport where it is available (with
         * {@link #nativeTransport(boolean)}), else on epoll or NIO as without it.
         */
        public Builder ioUring(boolean ioUring) {
            this.ioUring = ioUring;
            return this;
        }

        /** For a WebSocket server: answers HTTP requests to other paths (see {@link HttpResponder}). */
        public Builder httpResponder(HttpResponder responder) {
            this.httpResponder = responder;
            return this;
        }

        /** The clock that stamps received frames (the endpoint's, so that times compare). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public TcpConnectorConfig buildConfig() {
            if (bindAddress == null) {
                bindAddress = new InetSocketAddress(client ? 0 : transport.defaultPort());
            }
            if (transport.isSecure() && credentials == null) {
                throw new IllegalStateException(transport.scheme() + " needs TLS credentials");
            }
            if (transport.isSecure() && !client && credentials.key() == null) {
                throw new IllegalStateException("a " + transport.scheme() + " server needs a certificate and key");
            }
            return new TcpConnectorConfig(this);
        }

        /** A connector with these settings. Needs Netty (handler, and codec-http for WebSockets). */
        public NettyTcpConnector build() {
            return new NettyTcpConnector(buildConfig());
        }

        private static int positive(int value, String name) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }
    }
}
