package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.core.network.internal.Source;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The ban log's per-source limiter: keyed by {@link Source}, bounded, counting what it holds back. */
class PeerRateLimiterTest {

    private final VirtualClock clock = new VirtualClock();

    /** One event per source per period; the next one after the period says how many were held. */
    @Test
    void onePerSourcePerPeriodAndTheHeldCount() throws Exception {
        PeerRateLimiter limiter = new PeerRateLimiter(clock, Duration.ofMinutes(1), 16);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        assertEquals(0, limiter.tryAcquire(a));
        assertEquals(-1, limiter.tryAcquire(a));
        clock.advance(Duration.ofSeconds(59));
        assertEquals(-1, limiter.tryAcquire(a));
        clock.advance(Duration.ofSeconds(1));
        assertEquals(2, limiter.tryAcquire(a), "two held back");
        assertEquals(-1, limiter.tryAcquire(a), "and a new period began");
    }

    /** The host bits of an IPv6 address do not make a new source; the /64 does. */
    @Test
    void ipv6AddressesOfOneSlash64AreOneSource() throws Exception {
        PeerRateLimiter limiter = new PeerRateLimiter(clock, Duration.ofMinutes(1), 16);
        assertEquals(0, limiter.tryAcquire(InetAddress.getByName("2001:db8:1:2::1")));
        for (int i = 2; i < 1000; i++) {
            assertEquals(-1, limiter.tryAcquire(InetAddress.getByName("2001:db8:1:2:" + Integer.toHexString(i) + "::1")));
        }
        assertEquals(0, limiter.tryAcquire(InetAddress.getByName("2001:db8:1:3::1")));
        assertEquals(2, limiter.size());
    }

    /** 100,000 sources cost at most the capacity; the least recently seen is forgotten first. */
    @Test
    void boundedLeastRecentlySeenFirst() {
        PeerRateLimiter limiter = new PeerRateLimiter(clock, Duration.ofMinutes(1), 1000);
        for (long i = 0; i < 100_000; i++) {
            limiter.tryAcquire(new Source(0x0A00_0000L + i, false));
        }
        assertEquals(1000, limiter.size());
        assertEquals(-1, limiter.tryAcquire(new Source(0x0A00_0000L + 99_999, false)), "recent: remembered");
        assertEquals(0, limiter.tryAcquire(new Source(0x0A00_0000L, false)), "the first: forgotten");
        assertThrows(IllegalArgumentException.class, () -> new PeerRateLimiter(clock, Duration.ofMinutes(1), 0));
    }

    /**
     * Prefixes chosen to collide under {@code Long.hashCode} (high word equal to low word) stay
     * distinct sources, each remembered: the map's hash is keyed per process, not the JDK's.
     */
    @Test
    void keysThatCollideUnderTheJdkHashStayDistinct() {
        PeerRateLimiter limiter = new PeerRateLimiter(clock, Duration.ofMinutes(1), 4096);
        for (long i = 1; i <= 4096; i++) {
            Source s = new Source(i << 32 | i, true);
            assertEquals(0, Long.hashCode(s.prefix()));
            assertEquals(0, limiter.tryAcquire(s));
        }
        for (long i = 1; i <= 4096; i++) {
            assertEquals(-1, limiter.tryAcquire(new Source(i << 32 | i, true)), "remembered: " + i);
        }
        assertEquals(4096, limiter.size());
    }
}
