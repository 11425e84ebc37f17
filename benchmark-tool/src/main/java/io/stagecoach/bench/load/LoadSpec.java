package io.stagecoach.bench.load;

import io.stagecoach.core.coap.CoapUri;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What each virtual client sends and how one step is timed: immutable, validated on
 * construction. A step is warm-up (clients run, nothing is counted), the measured duration,
 * then cool-down (clients stop issuing requests; answers still in flight are received but not
 * counted; the next step starts after the cool-down).
 *
 * @param uri          target ({@code coap} or {@code coap+tcp}); its path and query become
 *                     Uri-Path/Uri-Query (RFC 7252 §6.4)
 * @param method       {@code GET} or {@code POST} (also PUT, DELETE, FETCH)
 * @param payloadSize  bytes of payload sent with each request (0 = none)
 * @param confirmable  CON (default, answered by a piggybacked ACK) or NON requests (§4.2, §4.3);
 *                     always {@code true} for {@code coap+tcp}, which has no types
 * @param timeout      a request unanswered this long after its first transmission counts as a timeout
 * @param loops        event-loop threads driving the clients (each with one selector)
 * @param retransmit   first retransmission interval of a CON request, doubled each time, at most
 *                     4 retransmissions (RFC 7252 §4.2, see {@link Retransmission}); {@code ZERO}
 *                     (the default) never retransmits. Must be zero for NON requests.
 */
public record LoadSpec(CoapUri uri, String method, int payloadSize, boolean confirmable,
        Duration timeout, Duration warmup, Duration duration, Duration cooldown, int loops, Duration retransmit) {

    /** A spec without retransmission. */
    public LoadSpec(CoapUri uri, String method, int payloadSize, boolean confirmable,
            Duration timeout, Duration warmup, Duration duration, Duration cooldown, int loops) {
        this(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, Duration.ZERO);
    }

    public LoadSpec {
        Objects.requireNonNull(retransmit, "retransmit");
        if (retransmit.isNegative()) {
            throw new IllegalArgumentException("retransmission interval must not be negative, got " + retransmit);
        }
        if (!retransmit.isZero() && !confirmable) {
            throw new IllegalArgumentException("NON requests are not retransmitted (RFC 7252 §4.3): "
                    + "drop the retransmission interval or send CON");
        }
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(method, "method");
        if (uri.isSecure()) {
            throw new IllegalArgumentException("coaps is not supported by the benchmark: " + uri);
        }
        if (uri.isReliableTransport() && !uri.scheme().equals("coap+tcp")) {
            throw new IllegalArgumentException("of RFC 8323's schemes the benchmark speaks coap+tcp only: " + uri);
        }
        if (uri.isReliableTransport() && !confirmable) {
            throw new IllegalArgumentException("coap+tcp has no NON requests (RFC 8323 §3.2): drop --non");
        }
        if (uri.isReliableTransport() && !retransmit.isZero()) {
            throw new IllegalArgumentException("coap+tcp requests are not retransmitted (RFC 8323 §3.2): drop --retransmit");
        }
        if (payloadSize < 0 || payloadSize > 60_000) {
            throw new IllegalArgumentException("payload size must be 0..60000 bytes, got " + payloadSize);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        if (warmup.isNegative() || cooldown.isNegative()) {
            throw new IllegalArgumentException("warm-up and cool-down must not be negative");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, got " + duration);
        }
        if (loops < 1 || loops > 64) {
            throw new IllegalArgumentException("event loops must be 1..64, got " + loops);
        }
        method = method.toUpperCase(Locale.ROOT);
    }

    /** Defaults of the papers: CON GET, 10 s timeout, 20 s steps after 5 s warm-up, 2 s cool-down. */
    public static LoadSpec defaults(CoapUri uri) {
        return new LoadSpec(uri, "GET", 0, true, Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(20), Duration.ofSeconds(2), defaultLoops());
    }

    /** One loop per two cores, at least one, at most four: the rest is left to the server. */
    public static int defaultLoops() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
    }

    public LoadSpec withTimes(Duration warmup, Duration duration, Duration cooldown) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, retransmit);
    }

    public LoadSpec withRequest(String method, int payloadSize, boolean confirmable) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, retransmit);
    }

    public LoadSpec withTimeout(Duration timeout) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, retransmit);
    }

    public LoadSpec withLoops(int loops) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, retransmit);
    }

    public LoadSpec withUri(CoapUri uri) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, retransmit);
    }

    /** This spec with CON retransmission after {@code initial}, doubling; {@code ZERO} turns it off. */
    public LoadSpec withRetransmit(Duration initial) {
        return new LoadSpec(uri, method, payloadSize, confirmable, timeout, warmup, duration, cooldown, loops, initial);
    }
}
