package io.stagecoach.core.endpoint;

import io.stagecoach.elements.time.Clock;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per misbehaving source address per minute on the logger {@value #LOGGER}, in a
 * form fail2ban can match (like Californium's {@code org.eclipse.californium.ban}):
 * <pre>
 * malformed CoAP from 10.0.0.9:40001: TKL 9 is reserved (RFC 7252 3)
 * CoAP limit exceeded from [fd00:0:0:0:0:0:0:1]:5683: 70 options, more than 64
 * </pre>
 * A line after a quiet minute ends with {@code (N more since)} when N events were held back.
 * The two kinds are limited separately, per IP address (port rotation does not multiply lines).
 */
final class BanLog {

    static final String LOGGER = "io.stagecoach.ban";
    static final Duration PERIOD = Duration.ofMinutes(1);
    /** Addresses remembered per kind; the least recently seen is forgotten. */
    static final int CAPACITY = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private final PeerRateLimiter malformed;
    private final PeerRateLimiter limits;

    BanLog(Clock clock) {
        this.malformed = new PeerRateLimiter(clock, PERIOD, CAPACITY);
        this.limits = new PeerRateLimiter(clock, PERIOD, CAPACITY);
    }

    /** A datagram from {@code peer} that is not CoAP (RFC 7252 §3) or breaks its rules. */
    void malformed(InetSocketAddress peer, String reason) {
        log(malformed, "malformed CoAP from ", peer, reason);
    }

    /** A request from {@code peer} over one of the {@link RequestLimits} or the block-wise limits. */
    void limitExceeded(InetSocketAddress peer, String reason) {
        log(limits, "CoAP limit exceeded from ", peer, reason);
    }

    private static void log(PeerRateLimiter limiter, String prefix, InetSocketAddress peer, String reason) {
        if (!LOG.isInfoEnabled() || peer == null || peer.getAddress() == null) {
            return;
        }
        long held = limiter.tryAcquire(peer.getAddress());
        if (held < 0) {
            return;
        }
        LOG.info("{}{}: {}{}", prefix, format(peer), reason, held == 0 ? "" : " (" + held + " more since)");
    }

    /** {@code 10.0.0.9:40001} or {@code [fd00:0:0:0:0:0:0:1]:5683}: no host name, no leading slash. */
    static String format(InetSocketAddress peer) {
        String host = peer.getAddress().getHostAddress();
        return (peer.getAddress() instanceof Inet6Address ? "[" + host + "]" : host) + ":" + peer.getPort();
    }
}
