package io.stagecoach.core.endpoint;

import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lets one event per source address through per period, on the endpoint's clock. Remembers at
 * most {@code capacity} addresses, forgetting the least recently seen, so a flood from many
 * addresses costs bounded memory (a forgotten address may log again early, which is harmless).
 * Thread-safe; protocol threads call it only on the error path.
 */
final class PeerRateLimiter {

    private final Clock clock;
    private final Duration period;
    private final Map<InetAddress, LogThrottle> entries;

    PeerRateLimiter(Clock clock, Duration period, int capacity) {
        this.clock = clock;
        this.period = period;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<InetAddress, LogThrottle> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Records an event from {@code source}: returns -1 when it falls within the period of the last
     * one let through, else how many were held back since then (0 for the first).
     */
    synchronized long tryAcquire(InetAddress source) {
        return entries.computeIfAbsent(source, s -> new LogThrottle(clock, period)).tryAcquire();
    }

    synchronized int size() {
        return entries.size();
    }
}
