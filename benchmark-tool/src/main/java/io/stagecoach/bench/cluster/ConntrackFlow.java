package io.stagecoach.bench.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * One UDP flow of {@code conntrack -L}: the original direction (client to virtual address) and
 * the reply direction, whose source is the node the balancer translated the flow to.
 *
 * <pre>
 * udp 17 29 src=10.200.0.2 dst=10.200.0.1 sport=40001 dport=5683 src=10.201.3.2 dst=10.200.0.2 sport=5683 dport=40001 ...
 * </pre>
 */
record ConntrackFlow(InetAddress origSource, int origSourcePort, InetAddress origDest, int origDestPort,
        InetAddress replySource) {

    /** The flow of one {@code conntrack -L} line, or {@code null} if it is not a UDP flow line. */
    static ConntrackFlow parse(String line) {
        List<String> src = new ArrayList<>();
        List<String> dst = new ArrayList<>();
        List<String> sport = new ArrayList<>();
        List<String> dport = new ArrayList<>();
        for (String field : line.trim().split("\\s+")) {
            int eq = field.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String key = field.substring(0, eq);
            String value = field.substring(eq + 1);
            switch (key) {
                case "src" -> src.add(value);
                case "dst" -> dst.add(value);
                case "sport" -> sport.add(value);
                case "dport" -> dport.add(value);
                default -> { }
            }
        }
        if (!line.startsWith("udp") || src.size() < 2 || dst.isEmpty() || sport.isEmpty() || dport.isEmpty()) {
            return null;
        }
        try {
            return new ConntrackFlow(InetAddress.getByName(src.get(0)), Integer.parseInt(sport.get(0)),
                    InetAddress.getByName(dst.get(0)), Integer.parseInt(dport.get(0)), InetAddress.getByName(src.get(1)));
        } catch (UnknownHostException | NumberFormatException e) {
            return null;
        }
    }
}
