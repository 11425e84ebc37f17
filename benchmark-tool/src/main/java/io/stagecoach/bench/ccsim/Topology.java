package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.sim.BottleneckLink;
import io.stagecoach.elements.sim.ImpairedLink;
import io.stagecoach.elements.sim.LinkConditions;
import java.time.Duration;
import java.util.Objects;

/**
 * The network of Järvinen et al., ANRW '18, §3.1: clients behind a constrained last hop shared by
 * all of them, a router, and a server 10–20 ms behind the router.
 *
 * <pre>
 *  clients --(uplink: 60 kbit/s, 200 ms, tail-drop buffer)--&gt; router --(10..20 ms)--&gt; server
 *  clients &lt;-(downlink: 30 kbit/s, 400 ms, tail-drop buffer)-- router &lt;-(10..20 ms)-- server
 * </pre>
 *
 * <p>Wire size of a packet = CoAP message + {@link #overheadBytes()} (28 = UDP 8 + IPv4 20; the paper
 * does not name the IP version, and its Table 1 fits IPv4: see docs/congestion-control.md).
 *
 * @param downBitRate router → devices, bit/s
 * @param upBitRate devices → router, bit/s
 * @param mtu largest wire size that passes the bottleneck
 * @param serverDelayMin lower end of the uniform router ↔ server delay, each direction
 * @param serverDelayMax upper end of that delay
 */
public record Topology(long downBitRate, Duration downDelay, long upBitRate, Duration upDelay, int mtu,
        int overheadBytes, Duration serverDelayMin, Duration serverDelayMax) {

    /** The paper's values (§3.1). */
    public static final Topology PAPER = new Topology(30_000, Duration.ofMillis(400), 60_000, Duration.ofMillis(200),
            296, 28, Duration.ofMillis(10), Duration.ofMillis(20));

    public Topology {
        Objects.requireNonNull(downDelay, "downDelay");
        Objects.requireNonNull(upDelay, "upDelay");
        Objects.requireNonNull(serverDelayMin, "serverDelayMin");
        Objects.requireNonNull(serverDelayMax, "serverDelayMax");
        if (downBitRate <= 0 || upBitRate <= 0) {
            throw new IllegalArgumentException("bit rates must be positive: " + downBitRate + ", " + upBitRate);
        }
        if (serverDelayMax.compareTo(serverDelayMin) < 0) {
            throw new IllegalArgumentException("serverDelayMax < serverDelayMin: " + serverDelayMax);
        }
    }

    /** The same network with another downlink rate (tests use a slow one to congest with few clients). */
    public Topology withDownBitRate(long bitsPerSecond) {
        return new Topology(bitsPerSecond, downDelay, upBitRate, upDelay, mtu, overheadBytes, serverDelayMin,
                serverDelayMax);
    }

    BottleneckLink uplink(long bufferBytes) {
        return BottleneckLink.builder(upBitRate, upDelay).mtu(mtu).bufferBytes(bufferBytes)
                .overheadBytes(overheadBytes).build();
    }

    BottleneckLink downlink(long bufferBytes) {
        return BottleneckLink.builder(downBitRate, downDelay).mtu(mtu).bufferBytes(bufferBytes)
                .overheadBytes(overheadBytes).build();
    }

    ImpairedLink routerServerLink() {
        return new ImpairedLink(LinkConditions.builder().delay(serverDelayMin)
                .jitter(serverDelayMax.minus(serverDelayMin)).build());
    }

    /**
     * Lower bound of one request/response round trip on an idle network: serialisation of both
     * messages on the bottleneck links, both propagation delays and twice the minimum server delay.
     */
    public long idleRoundTripNanos(int requestCoapBytes, int responseCoapBytes) {
        return serialization(requestCoapBytes + overheadBytes, upBitRate) + upDelay.toNanos()
                + serialization(responseCoapBytes + overheadBytes, downBitRate) + downDelay.toNanos()
                + 2 * serverDelayMin.toNanos();
    }

    private static long serialization(int wireBytes, long bitRate) {
        return (wireBytes * 8L * 1_000_000_000L + bitRate - 1) / bitRate;
    }
}
