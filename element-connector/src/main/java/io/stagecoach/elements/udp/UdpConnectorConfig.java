package io.stagecoach.elements.udp;

import io.stagecoach.elements.time.Clock;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Settings of a {@link UdpConnector} (and of {@code NettyUdpConnector}, which ignores
 * {@link #senderThreads()}). Immutable; built by a validating {@link Builder}.
 *
 * <p>Defaults and why (measurements in {@code docs/benchmarks/connectors.md}):
 * <ul>
 *   <li>bind address: wildcard, port 5683 (RFC 7252 §6.1);</li>
 *   <li>receiver threads 1, sender threads 1: one blocking thread per direction saturates a
 *       loopback socket on a small machine; more receivers help only when the receiver callback
 *       does real work;</li>
 *   <li>outbound queue 4096 datagrams: absorbs bursts of a busy server, bounded so memory
 *       cannot run away;</li>
 *   <li>SO_RCVBUF / SO_SNDBUF 4 MiB requested: the Linux kernel caps the request at
 *       {@code net.core.rmem_max} / {@code wmem_max} (often 208 KiB unless raised);
 *       a large receive buffer absorbs bursts while the receiver threads are descheduled;</li>
 *   <li>max datagram size 2048 bytes: a CoAP message with a 1024-byte block plus options
 *       (RFC 7252 §4.6 suggests 1152 as the usual upper bound) fits with room to spare.</li>
 * </ul>
 */
public final class UdpConnectorConfig {

    public static final int DEFAULT_PORT = 5683;
    public static final int DEFAULT_SOCKET_BUFFER = 4 * 1024 * 1024;
    public static final int DEFAULT_MAX_DATAGRAM_SIZE = 2048;
    public static final int DEFAULT_QUEUE_CAPACITY = 4096;
    /** The IPv4/IPv6 UDP payload limit. */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    private final InetSocketAddress bindAddress;
    private final int receiverThreads;
    private final int senderThreads;
    private final int outboundQueueCapacity;
    private final int receiveBufferSize;
    private final int sendBufferSize;
    private final int maxDatagramSize;
    private final Clock clock;

    private UdpConnectorConfig(Builder b) {
        bindAddress = b.bindAddress;
        receiverThreads = b.receiverThreads;
        senderThreads = b.senderThreads;
        outboundQueueCapacity = b.outboundQueueCapacity;
        receiveBufferSize = b.receiveBufferSize;
        sendBufferSize = b.sendBufferSize;
        maxDatagramSize = b.maxDatagramSize;
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

    public int receiverThreads() {
        return receiverThreads;
    }

    public int senderThreads() {
        return senderThreads;
    }

    public int outboundQueueCapacity() {
        return outboundQueueCapacity;
    }

    /** Requested SO_RCVBUF in bytes; 0 leaves the operating-system default. */
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** Requested SO_SNDBUF in bytes; 0 leaves the operating-system default. */
    public int sendBufferSize() {
        return sendBufferSize;
    }

    public int maxDatagramSize() {
        return maxDatagramSize;
    }

    /** Source of {@link io.stagecoach.elements.RawData#receiveNanos()}. */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "bind=" + bindAddress + " receivers=" + receiverThreads + " senders=" + senderThreads
                + " queue=" + outboundQueueCapacity + " rcvbuf=" + receiveBufferSize + " sndbuf="
                + sendBufferSize + " maxDatagram=" + maxDatagramSize;
    }

    /** Validates each value as it is set: a bad value fails at the line that set it. */
    public static final class Builder {
        private InetSocketAddress bindAddress = new InetSocketAddress(DEFAULT_PORT);
        private int receiverThreads = 1;
        private int senderThreads = 1;
        private int outboundQueueCapacity = DEFAULT_QUEUE_CAPACITY;
        private int receiveBufferSize = DEFAULT_SOCKET_BUFFER;
        private int sendBufferSize = DEFAULT_SOCKET_BUFFER;
        private int maxDatagramSize = DEFAULT_MAX_DATAGRAM_SIZE;
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
            clock = c.clock;
        }

        /** A resolved IPv4 or IPv6 address; port 0 picks a free port at {@code start()}. */
        public Builder bindAddress(InetSocketAddress address) {
            Objects.requireNonNull(address, "bindAddress");
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("bind address is unresolved: " + address);
            }
            this.bindAddress = address;
            return this;
        }

        public Builder receiverThreads(int n) {
            this.receiverThreads = checkRange("receiverThreads", n, 1, 64);
            return this;
        }

        public Builder senderThreads(int n) {
            this.senderThreads = checkRange("senderThreads", n, 1, 64);
            return this;
        }

        public Builder outboundQueueCapacity(int n) {
            this.outboundQueueCapacity = checkRange("outboundQueueCapacity", n, 1, 1 << 24);
            return this;
        }

        public Builder receiveBufferSize(int bytes) {
            this.receiveBufferSize = checkRange("receiveBufferSize", bytes, 0, Integer.MAX_VALUE);
            return this;
        }

        public Builder sendBufferSize(int bytes) {
            this.sendBufferSize = checkRange("sendBufferSize", bytes, 0, Integer.MAX_VALUE);
            return this;
        }

        public Builder maxDatagramSize(int bytes) {
            this.maxDatagramSize = checkRange("maxDatagramSize", bytes, 1, MAX_UDP_PAYLOAD);
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

        private static int checkRange(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "]: " + value);
            }
            return value;
        }
    }
}
