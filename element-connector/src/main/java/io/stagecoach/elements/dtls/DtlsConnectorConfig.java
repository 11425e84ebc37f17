package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.Definition;
import io.stagecoach.elements.time.Clock;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

// Over 500 lines: a validating builder for every dtls.* setting, each checked where it is set.
/**
 * Settings of a {@link DtlsConnector}. Immutable; built by a validating {@link Builder} whose
 * defaults are those of the {@link DtlsConfig} definitions (one source of defaults).
 *
 * <p>A connector is a {@linkplain Role#SERVER server} (accepts handshakes; needs a
 * {@link PskStore} and/or {@link CertificateCredentials}) or a {@linkplain Role#CLIENT client}
 * (connects on the first send to a peer; needs {@link PskCredentials} and/or a
 * {@link CertificateVerifier}).
 */
public final class DtlsConnectorConfig {

    /** Which side of the handshake this connector plays. */
    public enum Role { SERVER, CLIENT }

    /** Whether a server asks ECDSA clients for a certificate (PSK clients are never asked). */
    public enum ClientAuth { NONE, WANTED, NEEDED }

    /** The default port of coaps (RFC 7252 §12.8). */
    public static final int DEFAULT_PORT = 5684;

    private final Role role;
    private final InetSocketAddress bindAddress;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Function<DtlsConnectorConfig, Connector> transportFactory;
    private final PskStore pskStore;
    private final PskCredentials pskCredentials;
    private final CertificateCredentials certificateCredentials;
    private final CertificateVerifier certificateVerifier;
    private final ClientAuth clientAuth;
    private final List<DtlsCipherSuite> cipherSuites;
    private final int receiverThreads;
    private final int handshakeThreads;
    private final int maxHandshakes;
    private final int maxHandshakesPerSource;
    private final int maxHelloRate;
    private final int maxHelloRatePerSource;
    private final Duration handshakeTimeout;
    private final Duration retransmissionTimeout;
    private final int maxSessions;
    private final Duration sessionIdleTimeout;
    private final int resumptionCacheSize;
    private final int cidLength;
    private final int nodeId;
    private final int maxDatagramSize;
    private final int maxRecordSize;
    private final int handshakeQueueCapacity;
    private final int receiveBufferSize;
    private final int sendBufferSize;

    private DtlsConnectorConfig(Builder b) {
        role = b.role;
        bindAddress = b.bindAddress;
        clock = b.scheduler != null && b.clock == null ? b.scheduler : b.clock != null ? b.clock : Clock.system();
        scheduler = b.scheduler;
        transportFactory = b.transportFactory;
        pskStore = b.pskStore;
        pskCredentials = b.pskCredentials;
        certificateCredentials = b.certificateCredentials;
        certificateVerifier = b.certificateVerifier;
        clientAuth = b.clientAuth;
        receiverThreads = b.receiverThreads;
        handshakeThreads = b.handshakeThreads;
        maxHandshakes = b.maxHandshakes;
        maxHandshakesPerSource = b.maxHandshakesPerSource;
        maxHelloRate = b.maxHelloRate;
        maxHelloRatePerSource = b.maxHelloRatePerSource;
        handshakeTimeout = b.handshakeTimeout;
        retransmissionTimeout = b.retransmissionTimeout;
        maxSessions = b.maxSessions;
        sessionIdleTimeout = b.sessionIdleTimeout;
        resumptionCacheSize = b.resumptionCacheSize;
        cidLength = b.cidLength;
        nodeId = b.nodeId;
        maxDatagramSize = b.maxDatagramSize;
        maxRecordSize = b.maxRecordSize;
        handshakeQueueCapacity = b.handshakeQueueCapacity;
        receiveBufferSize = b.receiveBufferSize;
        sendBufferSize = b.sendBufferSize;
        cipherSuites = b.cipherSuites != null ? List.copyOf(b.cipherSuites) : defaultSuites();
    }

    private List<DtlsCipherSuite> defaultSuites() {
        boolean psk = role == Role.SERVER ? pskStore != null : pskCredentials != null;
        boolean ecdsa = role == Role.SERVER ? certificateCredentials != null
                : certificateVerifier != null || certificateCredentials != null;
        List<DtlsCipherSuite> suites = new ArrayList<>();
        for (DtlsCipherSuite s : DtlsCipherSuite.values()) {
            if (s.isPsk() ? psk : ecdsa) {
                suites.add(s);
            }
        }
        return List.copyOf(suites);
    }

    public static Builder builder(Role role) {
        return new Builder(role);
    }

    public Role role() {
        return role;
    }

    public InetSocketAddress bindAddress() {
        return bindAddress;
    }

    /** Source of receive times, idle and handshake deadlines. */
    public Clock clock() {
        return clock;
    }

    /** The scheduler for the periodic sweep, or {@code null}: the connector then runs its own timer thread. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** Makes the datagram connector underneath; {@code null}: a {@code UdpConnector}. */
    public Function<DtlsConnectorConfig, Connector> transportFactory() {
        return transportFactory;
    }

    public PskStore pskStore() {
        return pskStore;
    }

    public PskCredentials pskCredentials() {
        return pskCredentials;
    }

    public CertificateCredentials certificateCredentials() {
        return certificateCredentials;
    }

    public CertificateVerifier certificateVerifier() {
        return certificateVerifier;
    }

    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** Offered (client) or accepted (server) suites, in order of preference. */
    public List<DtlsCipherSuite> cipherSuites() {
        return cipherSuites;
    }

    public int receiverThreads() {
        return receiverThreads;
    }

    public int handshakeThreads() {
        return handshakeThreads;
    }

    public int maxHandshakes() {
        return maxHandshakes;
    }

    public int maxHandshakesPerSource() {
        return maxHandshakesPerSource;
    }

    /** ClientHellos per second that get a cookie check (and a HelloVerifyRequest), in total. */
    public int maxHelloRate() {
        return maxHelloRate;
    }

    /** ClientHellos per second that get a cookie check, per IPv4 address or IPv6 /64. */
    public int maxHelloRatePerSource() {
        return maxHelloRatePerSource;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public Duration retransmissionTimeout() {
        return retransmissionTimeout;
    }

    public int maxSessions() {
        return maxSessions;
    }

    public Duration sessionIdleTimeout() {
        return sessionIdleTimeout;
    }

    public int resumptionCacheSize() {
        return resumptionCacheSize;
    }

    public int cidLength() {
        return cidLength;
    }

    /** 0: random connection IDs; 1..255: the first byte of every connection ID issued. */
    public int nodeId() {
        return nodeId;
    }

    public int maxDatagramSize() {
        return maxDatagramSize;
    }

    public int maxRecordSize() {
        return maxRecordSize;
    }

    public int handshakeQueueCapacity() {
        return handshakeQueueCapacity;
    }

    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    public int sendBufferSize() {
        return sendBufferSize;
    }

    @Override
    public String toString() {
        return role + " bind=" + bindAddress + " suites=" + cipherSuites + " handshakeThreads=" + handshakeThreads
                + " maxHandshakes=" + maxHandshakes + "/" + maxHandshakesPerSource + " per source, hellos/s="
                + maxHelloRate + "/" + maxHelloRatePerSource + " per source, timeout "
                + handshakeTimeout + " maxSessions=" + maxSessions + " idle=" + sessionIdleTimeout + " cid="
                + cidLength + " node=" + nodeId;
    }

    /** Validates each value as it is set; {@link #build()} checks that the credentials fit the role. */
    public static final class Builder {
        private final Role role;
        private InetSocketAddress bindAddress;
        private Clock clock;
        private Scheduler scheduler;
        private Function<DtlsConnectorConfig, Connector> transportFactory;
        private PskStore pskStore;
        private PskCredentials pskCredentials;
        private CertificateCredentials certificateCredentials;
        private CertificateVerifier certificateVerifier;
        private ClientAuth clientAuth = ClientAuth.NONE;
        private List<DtlsCipherSuite> cipherSuites;
        private int receiverThreads = DtlsConfig.RECEIVER_THREADS.defaultValue();
        private int handshakeThreads = DtlsConfig.HANDSHAKE_THREADS.defaultValue();
        private int maxHandshakes = DtlsConfig.MAX_HANDSHAKES.defaultValue();
        private int maxHandshakesPerSource = DtlsConfig.MAX_HANDSHAKES_PER_SOURCE.defaultValue();
        private int maxHelloRate = DtlsConfig.MAX_HELLO_RATE.defaultValue();
        private int maxHelloRatePerSource = DtlsConfig.MAX_HELLO_RATE_PER_SOURCE.defaultValue();
        private Duration handshakeTimeout = DtlsConfig.HANDSHAKE_TIMEOUT.defaultValue();
        private Duration retransmissionTimeout = DtlsConfig.RETRANSMISSION_TIMEOUT.defaultValue();
        private int maxSessions = DtlsConfig.MAX_SESSIONS.defaultValue();
        private Duration sessionIdleTimeout = DtlsConfig.SESSION_IDLE_TIMEOUT.defaultValue();
        private int resumptionCacheSize = DtlsConfig.RESUMPTION_CACHE_SIZE.defaultValue();
        private int cidLength = DtlsConfig.CID_LENGTH.defaultValue();
        private int nodeId = DtlsConfig.NODE_ID.defaultValue();
        private int maxDatagramSize = DtlsConfig.MAX_DATAGRAM_SIZE.defaultValue();
        private int maxRecordSize = DtlsConfig.MAX_RECORD_SIZE.defaultValue();
        private int handshakeQueueCapacity = DtlsConfig.OUTBOUND_QUEUE_CAPACITY.defaultValue();
        private int receiveBufferSize = DtlsConfig.RECEIVE_BUFFER.defaultValue();
        private int sendBufferSize = DtlsConfig.SEND_BUFFER.defaultValue();

        private Builder(Role role) {
            this.role = Objects.requireNonNull(role, "role");
            this.bindAddress = new InetSocketAddress(role == Role.SERVER ? DEFAULT_PORT : 0);
        }

        /** Reads every {@code dtls.*} key of {@code config} (set or default). */
        public Builder apply(Configuration config) {
            receiverThreads(config.get(DtlsConfig.RECEIVER_THREADS));
            handshakeThreads(config.get(DtlsConfig.HANDSHAKE_THREADS));
            maxHandshakes(config.get(DtlsConfig.MAX_HANDSHAKES));
            maxHandshakesPerSource(config.get(DtlsConfig.MAX_HANDSHAKES_PER_SOURCE));
            maxHelloRate(config.get(DtlsConfig.MAX_HELLO_RATE));
            maxHelloRatePerSource(config.get(DtlsConfig.MAX_HELLO_RATE_PER_SOURCE));
            handshakeTimeout(config.get(DtlsConfig.HANDSHAKE_TIMEOUT));
            retransmissionTimeout(config.get(DtlsConfig.RETRANSMISSION_TIMEOUT));
            maxSessions(config.get(DtlsConfig.MAX_SESSIONS));
            sessionIdleTimeout(config.get(DtlsConfig.SESSION_IDLE_TIMEOUT));
            resumptionCacheSize(config.get(DtlsConfig.RESUMPTION_CACHE_SIZE));
            cidLength(config.get(DtlsConfig.CID_LENGTH));
            nodeId(config.get(DtlsConfig.NODE_ID));
            maxDatagramSize(config.get(DtlsConfig.MAX_DATAGRAM_SIZE));
            maxRecordSize(config.get(DtlsConfig.MAX_RECORD_SIZE));
            handshakeQueueCapacity(config.get(DtlsConfig.OUTBOUND_QUEUE_CAPACITY));
            receiveBufferSize(config.get(DtlsConfig.RECEIVE_BUFFER));
            sendBufferSize(config.get(DtlsConfig.SEND_BUFFER));
            return this;
        }

        /** A resolved address; port 0 picks a free port at {@code start()}. Default: wildcard, 5684 (server) or 0. */
        public Builder bindAddress(InetSocketAddress address) {
            Objects.requireNonNull(address, "bindAddress");
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("bind address is unresolved: " + address);
            }
            this.bindAddress = address;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Runs the periodic sweep (idle sessions, overdue handshakes) on {@code scheduler}, which
         * the connector does not own, and takes its clock unless {@link #clock} is set; tests pass a
         * {@code VirtualClock}.
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * The datagram connector underneath, e.g. a {@code SimulatedConnector} for tests; it is
         * started, stopped and destroyed with the DTLS connector. Default: a {@code UdpConnector}
         * on {@link #bindAddress}.
         */
        public Builder transport(Function<DtlsConnectorConfig, Connector> factory) {
            this.transportFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        public Builder pskStore(PskStore store) {
            this.pskStore = Objects.requireNonNull(store, "pskStore");
            return this;
        }

        public Builder pskCredentials(PskCredentials credentials) {
            this.pskCredentials = Objects.requireNonNull(credentials, "pskCredentials");
            return this;
        }

        public Builder certificateCredentials(CertificateCredentials credentials) {
            this.certificateCredentials = Objects.requireNonNull(credentials, "certificateCredentials");
            return this;
        }

        public Builder certificateVerifier(CertificateVerifier verifier) {
            this.certificateVerifier = Objects.requireNonNull(verifier, "certificateVerifier");
            return this;
        }

        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /** In order of preference. Default: every {@link DtlsCipherSuite} the credentials allow. */
        public Builder cipherSuites(DtlsCipherSuite... suites) {
            if (suites.length == 0) {
                throw new IllegalArgumentException("no cipher suite");
            }
            this.cipherSuites = List.of(suites);
            return this;
        }

        public Builder receiverThreads(int n) {
            this.receiverThreads = check(DtlsConfig.RECEIVER_THREADS, n);
            return this;
        }

        public Builder handshakeThreads(int n) {
            this.handshakeThreads = check(DtlsConfig.HANDSHAKE_THREADS, n);
            return this;
        }

        public Builder maxHandshakes(int n) {
            this.maxHandshakes = check(DtlsConfig.MAX_HANDSHAKES, n);
            return this;
        }

        public Builder maxHandshakesPerSource(int n) {
            this.maxHandshakesPerSource = check(DtlsConfig.MAX_HANDSHAKES_PER_SOURCE, n);
            return this;
        }

        public Builder maxHelloRate(int perSecond) {
            this.maxHelloRate = check(DtlsConfig.MAX_HELLO_RATE, perSecond);
            return this;
        }

        public Builder maxHelloRatePerSource(int perSecond) {
            this.maxHelloRatePerSource = check(DtlsConfig.MAX_HELLO_RATE_PER_SOURCE, perSecond);
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = check(DtlsConfig.HANDSHAKE_TIMEOUT, timeout);
            return this;
        }

        public Builder retransmissionTimeout(Duration timeout) {
            this.retransmissionTimeout = check(DtlsConfig.RETRANSMISSION_TIMEOUT, timeout);
            return this;
        }

        public Builder maxSessions(int n) {
            this.maxSessions = check(DtlsConfig.MAX_SESSIONS, n);
            return this;
        }

        public Builder sessionIdleTimeout(Duration timeout) {
            this.sessionIdleTimeout = check(DtlsConfig.SESSION_IDLE_TIMEOUT, timeout);
            return this;
        }

        public Builder resumptionCacheSize(int n) {
            this.resumptionCacheSize = check(DtlsConfig.RESUMPTION_CACHE_SIZE, n);
            return this;
        }

        public Builder cidLength(int bytes) {
            this.cidLength = check(DtlsConfig.CID_LENGTH, bytes);
            return this;
        }

        public Builder nodeId(int id) {
            this.nodeId = check(DtlsConfig.NODE_ID, id);
            return this;
        }

        public Builder maxDatagramSize(int bytes) {
            this.maxDatagramSize = check(DtlsConfig.MAX_DATAGRAM_SIZE, bytes);
            return this;
        }

        public Builder maxRecordSize(int bytes) {
            this.maxRecordSize = check(DtlsConfig.MAX_RECORD_SIZE, bytes);
            return this;
        }

        public Builder handshakeQueueCapacity(int n) {
            this.handshakeQueueCapacity = check(DtlsConfig.OUTBOUND_QUEUE_CAPACITY, n);
            return this;
        }

        public Builder receiveBufferSize(int bytes) {
            this.receiveBufferSize = check(DtlsConfig.RECEIVE_BUFFER, bytes);
            return this;
        }

        public Builder sendBufferSize(int bytes) {
            this.sendBufferSize = check(DtlsConfig.SEND_BUFFER, bytes);
            return this;
        }

        private static <T> T check(Definition<T> definition, T value) {
            return definition.validate(value);
        }

        /**
         * @throws IllegalStateException if the credentials do not fit the role, or a node ID is set
         *     without connection IDs
         */
        public DtlsConnectorConfig buildConfig() {
            if (role == Role.SERVER && pskStore == null && certificateCredentials == null) {
                throw new IllegalStateException("a DTLS server needs a PskStore or CertificateCredentials");
            }
            if (role == Role.CLIENT && pskCredentials == null && certificateVerifier == null) {
                throw new IllegalStateException("a DTLS client needs PskCredentials or a CertificateVerifier");
            }
            if (role == Role.SERVER && clientAuth != ClientAuth.NONE && certificateVerifier == null) {
                throw new IllegalStateException("client authentication " + clientAuth + " needs a CertificateVerifier");
            }
            if (nodeId != 0 && cidLength == 0) {
                throw new IllegalStateException("dtls.node-id needs connection IDs (dtls.cid-length > 0)");
            }
            DtlsConnectorConfig config = new DtlsConnectorConfig(this);
            if (config.cipherSuites.isEmpty()) {
                throw new IllegalStateException("no cipher suite fits the credentials");
            }
            for (DtlsCipherSuite s : config.cipherSuites) {
                boolean usable = s.isPsk()
                        ? (role == Role.SERVER ? pskStore != null : pskCredentials != null)
                        : (role == Role.SERVER ? certificateCredentials != null : certificateVerifier != null);
                if (!usable) {
                    throw new IllegalStateException(s + " needs credentials that were not set");
                }
            }
            return config;
        }

        public DtlsConnector build() {
            return new DtlsConnector(buildConfig());
        }
    }
}
