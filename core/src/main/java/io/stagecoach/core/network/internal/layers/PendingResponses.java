package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.network.internal.Source;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Server exchanges whose handler returned without answering (a separate response will follow,
 * RFC 7252 §5.2.2): each holds an exchange, a timer and a dedup entry until it is answered, so
 * their number is capped per source (IPv4 address, IPv6 /64) and in total. Thread-safe.
 */
final class PendingResponses {

    private final int max;
    private final int maxPerSource;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<Source, Integer> perSource = new ConcurrentHashMap<>();

    PendingResponses(int max, int maxPerSource) {
        this.max = max;
        this.maxPerSource = maxPerSource;
    }

    /** Takes a slot for {@code source}; {@code false} when the source or the endpoint is at its cap. */
    boolean tryAcquire(Source source) {
        boolean[] granted = new boolean[1];
        perSource.compute(source, (s, n) -> {
            int held = n == null ? 0 : n;
            if (held >= maxPerSource || total.incrementAndGet() > max) {
                if (held < maxPerSource) {
                    total.decrementAndGet();
                }
                return n;
            }
            granted[0] = true;
            return held + 1;
        });
        return granted[0];
    }

    void release(Source source) {
        perSource.computeIfPresent(source, (s, n) -> n <= 1 ? null : n - 1);
        total.decrementAndGet();
    }

    int size() {
        return total.get();
    }
}
