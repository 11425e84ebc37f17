package io.stagecoach.bench;

import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.network.internal.dedup.DedupResult;
import io.stagecoach.core.network.internal.dedup.DeduplicationStore;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;

/**
 * Heap bytes per remembered message of a STRICT {@link DeduplicationStore}: inserts and completes
 * {@code entries} CON requests (default 1,000,000) from {@code peers} IPv4 peers (default 1,000),
 * each with its own 20-byte reply, and compares used heap after full GCs before and after.
 *
 * <p>Usage: {@code java -cp ... io.stagecoach.bench.DedupFootprint [entries] [peers] [ipv6]}
 */
public final class DedupFootprint {

    private static final int REPLY_BYTES = 20;

    private DedupFootprint() {
    }

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int peers = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        boolean ipv6 = args.length > 2 && args[2].equals("ipv6");
        if (entries < 1 || peers < 1 || (long) peers * 65_536 < entries) {
            throw new IllegalArgumentException("need 1 <= entries <= peers * 65536 (one entry per MID and peer): "
                    + entries + " entries, " + peers + " peers");
        }
        InetSocketAddress[] addresses = new InetSocketAddress[peers];
        for (int p = 0; p < peers; p++) {
            String host = ipv6 ? "2001:db8::" + Integer.toHexString(p + 1)
                    : "10.0." + (p >>> 8) + "." + (p & 0xFF);
            addresses[p] = new InetSocketAddress(host, 5683 + p % 7);
        }
        long now = System.nanoTime();
        DeduplicationStore store = DeduplicationStore.builder().mode(DeduplicationMode.STRICT)
                .maxEntries(entries).clock(() -> now).build();

        long before = usedHeapAfterGc();
        int perPeer = (entries + peers - 1) / peers;
        int stored = 0;
        for (int mid = 0; mid < perPeer && stored < entries; mid++) {
            for (int p = 0; p < peers && stored < entries; p++) {
                if (store.lookupOrInsert(addresses[p], mid, true, false, now).status() != DedupResult.Status.NEW) {
                    throw new IllegalStateException("not stored: peer " + p + " mid " + mid);
                }
                byte[] reply = new byte[REPLY_BYTES]; // a piggybacked 2.05 "hello world"-sized ACK
                reply[0] = 0x60;
                reply[1] = 0x45;
                store.complete(addresses[p], mid, reply);
                stored++;
            }
        }
        long after = usedHeapAfterGc();
        double perEntry = (after - before) / (double) stored;
        System.out.printf("entries=%d peers=%d family=%s store.size=%d%n", stored, peers, ipv6 ? "IPv6" : "IPv4",
                store.size());
        System.out.printf("used heap: before=%d after=%d delta=%d bytes%n", before, after, after - before);
        System.out.printf("bytes/entry=%.1f (of which the %d-byte reply array: %d)%n", perEntry, REPLY_BYTES,
                arrayBytes(REPLY_BYTES));
        if (store.size() != stored) {
            throw new IllegalStateException("store lost entries");
        }
    }

    /** Heap size of a byte[] with compressed class pointers: 16-byte header, 8-byte alignment. */
    private static int arrayBytes(int length) {
        return (16 + length + 7) & ~7;
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
