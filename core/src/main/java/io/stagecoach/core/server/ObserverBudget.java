package io.stagecoach.core.server;

import java.util.concurrent.atomic.AtomicInteger;

/** The number of observe relations a whole server accepts (OBSERVE_MAX_OBSERVERS), shared by its endpoints. */
final class ObserverBudget {

    private final int max;
    private final AtomicInteger used = new AtomicInteger();

    ObserverBudget(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max observers must be at least 1, got " + max);
        }
        this.max = max;
    }

    boolean tryAcquire() {
        int u = used.get();
        while (u < max) {
            if (used.compareAndSet(u, u + 1)) {
                return true;
            }
            u = used.get();
        }
        return false;
    }

    void release() {
        used.decrementAndGet();
    }

    int used() {
        return used.get();
    }
}
