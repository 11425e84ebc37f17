package io.stagecoach.elements.udp;

import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.time.Clock;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Settings of a {@link UdpConnector} and of {@code NettyUdpConnector}. Immutable; built by a
 * validating {@link Builder}.
 *
 * <p>The defaults and bounds are those of the {@link UdpConfig} definitions, their one source
 * (documented, with the reasons, in {@code docs/configuration.md}); {@link Builder#apply} takes
 * every {@code udp.*} value of a {@link Configuration}. The bind address defaults to every
 * interface, IPv4 and IPv6 ({@link BindFamily#everyInterface}: {@code [::]}, dual-stack), port 5683
 * (RFC 7252 §6.1); the socket takes the bind address's family ({@link BindFamily}). The JDK connector ignores
 * {@link #nettyChannels()}, {@link #batchSize()} and {@link #dontFragment()}; the Netty connector ignores the thread counts.
 */
public final class UdpConnectorConfig {

    public static final int DEFAULT_PORT = 5683;
    /** The IPv4/IPv6 UDP payload limit. */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    private final InetSocketAddress bindAddress;
    private final int receiverThreads;
    private final int senderThreads;
    private final int outboundQueueCapacity;
    private final int receiveBufferSize;
    private final int sendBufferSize;
    private final int maxDatagramSize;
    private final int nettyChannels;
    private final int batchSize;
    private final boolean dontFragment;
    private final Clock clock;

    private UdpConnectorConfig(Builder b) {
        bindAddress = b.bindAddress;
        receiverThreads = b.receiverThreads;
        senderThreads = b.senderThreads;
        outboundQueueCapacity = b.outboundQueueCapacity;
        receiveBufferSize = b.receiveBufferSize;
        sendBufferSize = b.sendBufferSize;
        maxDatagramSize = b.maxDatagramSize;
        nettyChannels = b.nettyChannels;
        batchSize = b.batchSize;
        dontFragment = b.dontFragment;
        clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder newBuilder() {
        return new Builder(this);
    }

    public InetSocketAddress bindAddress() {
        return bindAddress;
    }

    /** {@code udp.receiver-threads}. */
    public int receiverThreads() {
        return receiverThreads;
    }

    /** {@code udp.sender-threads}. */
    public int senderThreads() {
        return senderThreads;
    }

    /** {@code udp.outbound-queue-capacity}. */
    public int outboundQueueCapacity() {
        return outboundQueueCapacity;
    }

    /** Requested SO_RCVBUF in bytes ({@code udp.receive-buffer}); 0 leaves the OS default. */
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** Requested SO_SNDBUF in bytes ({@code udp.send-buffer}); 0 leaves the OS default. */
    public int sendBufferSize() {
        return sendBufferSize;
    }

    /** {@code udp.max-datagram-size}. */
    public int maxDatagramSize() {
        return maxDatagramSize;
    }

    /** SO_REUSEPORT channels of the Netty connector on epoll ({@code udp.netty-channels}). */
    public int nettyChannels() {
        return nettyChannels;
    }

    /** Datagrams per recvmmsg/sendmmsg of the Netty connector on epoll ({@code udp.batch-size}). */
    public int batchSize() {
        return batchSize;
    }

    /**
     * Whether the Netty epoll connector sends IPv4 datagrams as atomic datagrams, DF set, never
     * fragmented locally and sized by the interface MTU, not a path MTU learned from ICMP
     * ({@code udp.dont-fragment}); the JDK connector leaves the OS default.
     */
    public boolean dontFragment() {
        return dontFragment;
    }

    /** Source of {@link io.stagecoach.elements.RawData#receiveNanos()}: the endpoint's clock. */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "bind=" + bindAddress + " receivers=" + receiverThreads + " senders=" + senderThreads
                + " queue=" + outboundQueueCapacity + " rcvbuf=" + receiveBufferSize + " sndbuf="
                + sendBufferSize + " maxDatagram=" + maxDatagramSize + " nettyChannels=" + nettyChannels
                + " batch=" + batchSize + " dontFragment=" + dontFragment;
    }

    /**
     * Validates each value as it is set, against the bounds of its {@link UdpConfig} definition,
     * so a bad value fails at the line that set it.
     */
    public static final class Builder {
        private InetSocketAddress bindAddress = BindFamily.everyInterface(DEFAULT_PORT);
        private int receiverThreads = UdpConfig.RECEIVER_THREADS.defaultValue();
        private int senderThreads = UdpConfig.SENDER_THREADS.defaultValue();
        private int outboundQueueCapacity = UdpConfig.OUTBOUND_QUEUE_CAPACITY.defaultValue();
        private int receiveBufferSize = UdpConfig.RECEIVE_BUFFER.defaultValue();
        private int sendBufferSize = UdpConfig.SEND_BUFFER.defaultValue();
        private int maxDatagramSize = UdpConfig.MAX_DATAGRAM_SIZE.defaultValue();
        private int nettyChannels = UdpConfig.NETTY_CHANNELS.defaultValue();
        private int batchSize = UdpConfig.BATCH_SIZE.defaultValue();
        private boolean dontFragment = UdpConfig.DONT_FRAGMENT.defaultValue();
        private Clock clock = Clock.system();

        private Builder() {
        }

        private Builder(UdpConnectorConfig c) {
            bindAddress = c.bindAddress;
            receiverThreads = c.receiverThreads;
            senderThreads = c.senderThreads;
            outboundQueueCapacity = c.outboundQueueCapacity;
            receiveBufferSize = c.receiveBufferSize;
            sendBufferSize = c.sendBufferSize;
            maxDatagramSize = c.maxDatagramSize;
            nettyChannels = c.nettyChannels;
            batchSize = c.batchSize;
            dontFragment = c.dontFragment;
            clock = c.clock;
        }

        /** Takes every {@code udp.*} value of {@code config} (its defaults where it sets none). */
        public Builder apply(Configuration config) {
            receiverThreads = config.get(UdpConfig.RECEIVER_THREADS);
            senderThreads = config.get(UdpConfig.SENDER_THREADS);
            outboundQueueCapacity = config.get(UdpConfig.OUTBOUND_QUEUE_CAPACITY);
            receiveBufferSize = config.get(UdpConfig.RECEIVE_BUFFER);
            sendBufferSize = config.get(UdpConfig.SEND_BUFFER);
            maxDatagramSize = config.get(UdpConfig.MAX_DATAGRAM_SIZE);
            nettyChannels = config.get(UdpConfig.NETTY_CHANNELS);
            batchSize = config.get(UdpConfig.BATCH_SIZE);
            dontFragment = config.get(UdpConfig.DONT_FRAGMENT);
            return this;
        }

        /**
         * A resolved IPv4 or IPv6 address; port 0 picks a free port at {@code start()}. The socket
         * takes its family ({@link BindFamily}): a specific IPv4 address serves IPv4 peers only;
         * either wildcard ({@code 0.0.0.0}, which is also {@code new InetSocketAddress(port)}, or
         * {@code [::]}) serves both.
         */
        public Builder bindAddress(InetSocketAddress address) {
            Objects.requireNonNull(address, "bindAddress");
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("bind address is unresolved: " + address);
            }
            this.bindAddress = address;
            return this;
        }

        public Builder receiverThreads(int n) {
            this.receiverThreads = UdpConfig.RECEIVER_THREADS.validate(n);
            return this;
        }

        public Builder senderThreads(int n) {
            this.senderThreads = UdpConfig.SENDER_THREADS.validate(n);
            return this;
        }

        public Builder outboundQueueCapacity(int n) {
            this.outboundQueueCapacity = UdpConfig.OUTBOUND_QUEUE_CAPACITY.validate(n);
            return this;
        }

        public Builder receiveBufferSize(int bytes) {
            this.receiveBufferSize = UdpConfig.RECEIVE_BUFFER.validate(bytes);
            return this;
        }

        public Builder sendBufferSize(int bytes) {
            this.sendBufferSize = UdpConfig.SEND_BUFFER.validate(bytes);
            return this;
        }

        public Builder maxDatagramSize(int bytes) {
            this.maxDatagramSize = UdpConfig.MAX_DATAGRAM_SIZE.validate(bytes);
            return this;
        }

        public Builder nettyChannels(int n) {
            this.nettyChannels = UdpConfig.NETTY_CHANNELS.validate(n);
            return this;
        }

        public Builder batchSize(int datagrams) {
            this.batchSize = UdpConfig.BATCH_SIZE.validate(datagrams);
            return this;
        }

        public Builder dontFragment(boolean dontFragment) {
            this.dontFragment = dontFragment;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public UdpConnectorConfig buildConfig() {
            return new UdpConnectorConfig(this);
        }

        public UdpConnector build() {
            return new UdpConnector(buildConfig());
        }
    }
}
