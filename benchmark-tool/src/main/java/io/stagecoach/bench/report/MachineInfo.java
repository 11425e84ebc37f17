package io.stagecoach.bench.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Facts about the machine and JVM that produced a result, for the reports. */
public final class MachineInfo {

    private MachineInfo() {
    }

    /** Ordered key → value (String or Number): host, os, cores, JVM, heap, load average, date. */
    public static Map<String, Object> collect() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", hostName());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        m.put("cpu", cpuModel());
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        m.put("load_average", Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0);
        m.put("date", Instant.now().toString());
        return m;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch");
    }
}
