package io.stagecoach.core.endpoint;

import io.stagecoach.core.network.internal.Source;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.time.Clock;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * INFO lines on the logger {@value #LOGGER} about misbehaving sources, in a form fail2ban can
 * match (like Californium's {@code org.eclipse.californium.ban}):
 * <pre>
 * malformed CoAP from 10.0.0.9:40001: TKL 9 is reserved (RFC 7252 3)
 * CoAP limit exceeded from [fd00:0:0:0:0:0:0:1]:5683: 70 options, more than 64
 * malformed CoAP from 10.0.0.9:40001: TKL 9 is reserved (RFC 7252 3) (2 more since)
 * malformed CoAP from 10.0.0.7:5683: Empty NON message (RFC 7252 4.1) (40 other lines over the global limit)
 * </pre>
 * What a remote party cannot steer:
 * <ul>
 *   <li>Per source: one line per kind per {@link Source} (an IPv4 address or an IPv6 /64) per
 *       {@link #PERIOD}; rotating ports or IPv6 host bits does not multiply lines. A line after
 *       a quiet period ends with {@code (N more since)} when N events of that source were held
 *       back.</li>
 *   <li>In all: at most {@link #GLOBAL_LINES} lines per period, whatever the number of sources;
 *       the lines over it are counted and the next line written says how many ({@code (M other
 *       lines over the global limit)}).</li>
 *   <li>The text: the reason is escaped to printable ASCII and cut at {@link #MAX_REASON_CHARS}
 *       ({@link SafeText#forLog(CharSequence, int)}), so no line can be forged with CR/LF and no
 *       terminal escape reaches a console; the address is printed from its bytes.</li>
 * </ul>
 * Every event is still counted in the endpoint's counters, logged or not.
 */
final class BanLog {

    static final String LOGGER = "io.stagecoach.ban";
    static final Duration PERIOD = Duration.ofMinutes(1);
    /** Sources remembered per kind; the least recently seen is forgotten. */
    static final int CAPACITY = 4096;
    /** Lines per {@link #PERIOD} in all, both kinds together. */
    static final int GLOBAL_LINES = 100;
    /** The longest reason written, in escaped characters. */
    static final int MAX_REASON_CHARS = 200;

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private final PeerRateLimiter malformed;
    private final PeerRateLimiter limits;
    private final GlobalLimit global;

    BanLog(Clock clock) {
        this(clock, PERIOD, CAPACITY, GLOBAL_LINES);
    }

    BanLog(Clock clock, Duration period, int capacity, int globalLines) {
        this.malformed = new PeerRateLimiter(clock, period, capacity);
        this.limits = new PeerRateLimiter(clock, period, capacity);
        this.global = new GlobalLimit(clock, period, globalLines);
    }

    /** A datagram from {@code peer} that is not CoAP (RFC 7252 §3) or breaks its rules. */
    void malformed(InetSocketAddress peer, String reason) {
        log(malformed, "malformed CoAP from ", peer, reason);
    }

    /** A request from {@code peer} over one of the {@link RequestLimits} or the block-wise limits. */
    void limitExceeded(InetSocketAddress peer, String reason) {
        log(limits, "CoAP limit exceeded from ", peer, reason);
    }

    private void log(PeerRateLimiter limiter, String prefix, InetSocketAddress peer, String reason) {
        if (!LOG.isInfoEnabled() || peer == null || peer.getAddress() == null) {
            return;
        }
        long held = limiter.tryAcquire(Source.of(peer.getAddress()));
        if (held < 0) {
            return;
        }
        long over = global.tryAcquire();
        if (over < 0) {
            return;
        }
        LOG.info("{}{}: {}{}", prefix, format(peer), SafeText.forLog(reason, MAX_REASON_CHARS), suffix(held, over));
    }

    static String suffix(long held, long over) {
        if (held == 0 && over == 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder(" (");
        if (held > 0) {
            sb.append(held).append(" more since");
        }
        if (over > 0) {
            sb.append(held > 0 ? "; " : "").append(over).append(" other lines over the global limit");
        }
        return sb.append(')').toString();
    }

    /**
     * {@code 10.0.0.9:40001} or {@code [fd00:0:0:0:0:0:0:1]:5683}: the address from its bytes (no
     * host name, no leading slash, no IPv6 scope), then the port.
     */
    static String format(InetSocketAddress peer) {
        InetAddress a = peer.getAddress();
        String host = a.getHostAddress();
        if (a instanceof Inet6Address) {
            int scope = host.indexOf('%');
            return "[" + (scope < 0 ? host : host.substring(0, scope)) + "]:" + peer.getPort();
        }
        return host + ":" + peer.getPort();
    }

    /**
     * At most {@code lines} per period in all, in fixed windows that start with the first line
     * after a window ended; counts the lines refused since the last one let through.
     */
    static final class GlobalLimit {
        private final Clock clock;
        private final long periodNanos;
        private final int lines;
        private long windowEnd;
        private int used;
        private long refused;
        private boolean started;

        GlobalLimit(Clock clock, Duration period, int lines) {
            if (lines < 1) {
                throw new IllegalArgumentException("lines must be positive: " + lines);
            }
            this.clock = clock;
            this.periodNanos = period.toNanos();
            this.lines = lines;
        }

        /** -1 when this line is over the limit, else how many were refused since the last one let through. */
        synchronized long tryAcquire() {
            long now = clock.nanoTime();
            if (!started || now - windowEnd >= 0) {
                started = true;
                windowEnd = now + periodNanos;
                used = 0;
            }
            if (used >= lines) {
                refused++;
                return -1;
            }
            used++;
            long r = refused;
            refused = 0;
            return r;
        }
    }
}
