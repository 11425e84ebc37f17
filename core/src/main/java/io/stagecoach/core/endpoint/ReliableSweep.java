package io.stagecoach.core.endpoint;

import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol timeouts of a reliable-transport endpoint, as one pass over its connections on the
 * endpoint's scheduler: no CSM within {@code tcp.csm-timeout} (RFC 8323 §5.3) and a frame
 * incomplete for {@code tcp.frame-timeout} abort; a connection idle for {@code tcp.idle-timeout}
 * with no exchange and no Ping is released (§5.5) and closed.
 */
final class ReliableSweep {

    private static final Logger LOG = LoggerFactory.getLogger(ReliableTransport.class);

    private final ReliableConnections connections;
    private final ReliableControl control;
    private final Scheduler scheduler;
    private final long csmTimeoutNanos;
    private final long frameTimeoutNanos;
    private final long idleTimeoutNanos;

    /** @param idleTimeoutNanos 0: idle connections stay open */
    ReliableSweep(ReliableConnections connections, ReliableControl control, Scheduler scheduler, long csmTimeoutNanos,
            long frameTimeoutNanos, long idleTimeoutNanos) {
        this.connections = connections;
        this.control = control;
        this.scheduler = scheduler;
        this.csmTimeoutNanos = csmTimeoutNanos;
        this.frameTimeoutNanos = frameTimeoutNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
    }

    /** A quarter of the shortest timeout, within 10 ms .. 1 s: how late a timeout may fire. */
    Duration period() {
        long shortest = Math.min(csmTimeoutNanos, frameTimeoutNanos);
        if (idleTimeoutNanos > 0) {
            shortest = Math.min(shortest, idleTimeoutNanos);
        }
        return Duration.ofNanos(Math.max(10_000_000L, Math.min(1_000_000_000L, shortest / 4)));
    }

    void run() {
        long now = scheduler.nanoTime();
        for (ReliableConnection c : connections.all()) {
            if (!c.isOpen() || c.closing) {
                continue;
            }
            if (!c.csmReceived && now - c.openedNanos >= csmTimeoutNanos) {
                control.abort(c, -1, "no CSM within " + Duration.ofNanos(csmTimeoutNanos).toMillis()
                        + " ms (RFC 8323 5.3)");
            } else if (c.partialSinceNanos >= 0 && now - c.partialSinceNanos >= frameTimeoutNanos) {
                control.abort(c, -1, "frame incomplete for " + Duration.ofNanos(frameTimeoutNanos).toMillis() + " ms");
            } else if (idleTimeoutNanos > 0 && c.exchanges.isEmpty() && c.pings.isEmpty()
                    && now - c.lastActivityNanos >= idleTimeoutNanos) {
                LOG.debug("releasing idle {}", c);
                control.release(c, "idle for " + Duration.ofNanos(idleTimeoutNanos).toSeconds() + " s");
            }
        }
    }
}
