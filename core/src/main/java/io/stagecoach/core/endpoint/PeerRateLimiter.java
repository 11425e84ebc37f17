package io.stagecoach.core.endpoint;

import io.stagecoach.core.network.internal.Source;
import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lets one event per {@link Source} (an IPv4 address, or an IPv6 /64) through per period, on the
 * endpoint's clock, and counts the ones it holds back. Rotating ports or the host bits of an IPv6
 * address therefore does not let more events through.
 *
 * <p>Remembers at most {@code capacity} sources, forgetting the least recently seen, so a flood
 * from many sources costs bounded memory (a forgotten source may log again early: the ban log's
 * global limit bounds that). The map is keyed by {@code Source}, whose hash is keyed per process
 * and which is {@link Comparable}, so a remote party can neither compute colliding keys nor make
 * a crowded bin cost more than {@code O(log n)}.
 *
 * <p>Thread-safe; protocol threads call it only on the error path.
 */
final class PeerRateLimiter {

    private final Clock clock;
    private final long periodNanos;
    private final Map<Source, Slot> slots;

    PeerRateLimiter(Clock clock, Duration period, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.clock = clock;
        this.periodNanos = period.toNanos();
        this.slots = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Source, Slot> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Records an event from {@code source}: returns -1 when it falls within the period of the last
     * one let through, else how many were held back since then (0 for the first).
     */
    synchronized long tryAcquire(Source source) {
        long now = clock.nanoTime();
        Slot s = slots.get(source);
        if (s == null) {
            slots.put(source, new Slot(now + periodNanos));
            return 0;
        }
        if (now - s.next < 0) {
            s.held++;
            return -1;
        }
        long held = s.held;
        s.held = 0;
        s.next = now + periodNanos;
        return held;
    }

    /** {@link #tryAcquire(Source)} for the source of {@code address}. */
    long tryAcquire(InetAddress address) {
        return tryAcquire(Source.of(address));
    }

    synchronized int size() {
        return slots.size();
    }

    /** When the next event may pass, and how many were held back since the last one did. */
    private static final class Slot {
        long next;
        long held;

        Slot(long next) {
            this.next = next;
        }
    }
}
