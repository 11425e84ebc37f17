package io.stagecoach.bench;

import io.stagecoach.core.network.internal.MessageIdProvider;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Heap bytes per peer tracked by a {@link MessageIdProvider}: one MID for each of {@code peers}
 * IPv4 peers (default 100,000), used heap after full GCs before and after.
 *
 * <p>Usage: {@code java -cp ... io.stagecoach.bench.MidFootprint [peers]}
 */
public final class MidFootprint {

    private MidFootprint() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        InetSocketAddress[] peers = new InetSocketAddress[n];
        for (int i = 0; i < n; i++) {
            peers[i] = new InetSocketAddress("10." + (i >>> 16 & 0xFF) + "." + (i >>> 8 & 0xFF) + "." + (i & 0xFF), 5683);
        }
        MessageIdProvider provider = new MessageIdProvider(Duration.ofSeconds(247), n, n, new SplittableRandom(1));
        long before = usedHeapAfterGc();
        for (InetSocketAddress peer : peers) {
            provider.nextMid(peer, 0L);
        }
        long after = usedHeapAfterGc();
        System.out.printf("peers=%d bytes/peer=%.1f%n", provider.trackedPeers(), (after - before) / (double) n);
    }

    private static long usedHeapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
