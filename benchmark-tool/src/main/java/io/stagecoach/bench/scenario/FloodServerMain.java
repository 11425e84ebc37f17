package io.stagecoach.bench.scenario;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.server.ServerCounters;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server of the flood scenario, run in a JVM of its own ({@link FloodTarget} starts it): the
 * plugtest server of {@code ./stagecoach server} (its resources, the default configuration with
 * {@code stagecoach.*} system properties applied, the UDP connector) on 127.0.0.1, with a block
 * size and notification period from the arguments. It talks to the scenario over its standard
 * streams, one line per command:
 * <ul>
 *   <li>on start: {@code flood-ready HOST:PORT};</li>
 *   <li>{@code stats}: {@code flood-stats k=v ...} — the endpoint's counters and gauges, the
 *       resource stage's counters, heap used, committed and max, the peak heap since the last
 *       {@code reset-peak}, GC count and time, live threads;</li>
 *   <li>{@code gc}: a full collection first, then the same line (heap used is then what is
 *       reachable);</li>
 *   <li>{@code reset-peak}: {@code flood-ok};</li>
 *   <li>{@code quit}, or the end of standard input (the scenario is gone): destroy and exit.</li>
 * </ul>
 * Usage: {@code FloodServerMain PORT BLOCK_SIZE NOTIFY_MS}. Logs go to standard error.
 */
public final class FloodServerMain {

    static final String READY = "flood-ready ";
    static final String STATS = "flood-stats ";
    static final String OK = "flood-ok";

    private FloodServerMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: FloodServerMain PORT BLOCK_SIZE NOTIFY_MS");
        }
        int port = Integer.parseInt(args[0]);
        int blockSize = Integer.parseInt(args[1]);
        Duration notify = Duration.ofMillis(Long.parseLong(args[2]));
        Configuration.Builder config = CoapConfig.builder().applySystemProperties();
        Plugtest.blockSize(config, blockSize);
        RealTimeScheduler scheduler = new RealTimeScheduler();
        CoapServer server = CoapServer.builder().config(config.build()).scheduler(scheduler)
                .udp(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).build();
        Plugtest plugtest = Plugtest.builder().scheduler(scheduler).notifyPeriod(notify).build().installOn(server);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try {
            server.start();
            InetSocketAddress bound = server.addresses().get(0);
            out.println(READY + bound.getAddress().getHostAddress() + ":" + bound.getPort());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                switch (line) {
                    case "stats" -> out.println(STATS + format(stats(server)));
                    case "gc" -> {
                        System.gc();
                        out.println(STATS + format(stats(server)));
                    }
                    case "reset-peak" -> {
                        ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
                        out.println(OK);
                    }
                    default -> out.println("flood-error unknown command");
                }
            }
        } finally {
            server.destroy();
            plugtest.close();
            scheduler.close();
        }
    }

    /** Everything one {@code stats} line reports, by name. */
    static Map<String, Long> stats(CoapServer server) {
        Map<String, Long> m = new LinkedHashMap<>(server.endpoints().get(0).counters().snapshot());
        ServerCounters sc = server.counters().get(0);
        m.put("server.delivered", sc.delivered());
        m.put("server.rejected_overload", sc.rejectedOverload());
        m.put("server.handler_errors", sc.handlerErrors());
        m.put("server.observe_rejected", sc.observeRejected());
        m.put("server.notifications_skipped", sc.notificationsSkipped());
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        m.put("heap.used", heap.getUsed());
        m.put("heap.committed", heap.getCommitted());
        m.put("heap.max", heap.getMax());
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        m.put("heap.peak", peak);
        long gcs = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        m.put("gc.count", gcs);
        m.put("gc.millis", gcMillis);
        m.put("threads", (long) Thread.activeCount());
        return m;
    }

    static String format(Map<String, Long> stats) {
        StringBuilder sb = new StringBuilder();
        stats.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }
}
