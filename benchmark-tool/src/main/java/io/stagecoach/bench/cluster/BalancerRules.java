package io.stagecoach.bench.cluster;

import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The balancer's nftables table (docs/cluster.md), in nft's own syntax, and the edits that take a
 * node out of it. Two maps decide where the first datagram of a UDP flow to the virtual address
 * goes; conntrack keeps every later datagram of that flow (same addresses and ports) on the same
 * node, as kube-proxy's rules do:
 * <ol>
 *   <li>a DTLS 1.2 record with a Connection ID (content type 25 = {@code tls12_cid}, version
 *       0xFEFD; RFC 9146 §4) goes to the node named by the first CID byte, which starts at UDP
 *       payload byte 11, bit 152 from the start of the UDP header: {@code @th,152,8};</li>
 *   <li>everything else (CoAP, DTLS handshakes, records without a CID) by a hash of the source
 *       address and port over {@link #BUCKETS_PER_NODE} buckets per node, so that removing a
 *       node moves only the flows of its buckets.</li>
 * </ol>
 * A CID whose node is not in the map fails the lookup; nft then goes on to the hash rule, so a
 * record for a dead node reaches a survivor, which does not know the session and drops it.
 */
final class BalancerRules {

    /** Hash buckets per node: with 3 nodes, 24; a dead node's 8 split evenly over the survivors. */
    static final int BUCKETS_PER_NODE = 8;

    private final String table;
    private final Inet4Address vip;
    private final int coapPort;
    private final int coapsPort;
    private final TreeMap<Integer, Inet4Address> nodes;
    private final int[] buckets;

    /**
     * @param nodes node ID (the first CID byte, 1..255) to the node's address
     */
    BalancerRules(String table, Inet4Address vip, int coapPort, int coapsPort, Map<Integer, Inet4Address> nodes) {
        this.table = Objects.requireNonNull(table, "table");
        this.vip = Objects.requireNonNull(vip, "vip");
        this.coapPort = coapPort;
        this.coapsPort = coapsPort;
        this.nodes = new TreeMap<>(nodes);
        if (this.nodes.isEmpty() || this.nodes.firstKey() < 1 || this.nodes.lastKey() > 255) {
            throw new IllegalArgumentException("node IDs are 1..255, at least one: " + nodes.keySet());
        }
        List<Integer> ids = new ArrayList<>(this.nodes.keySet());
        this.buckets = new int[ids.size() * BUCKETS_PER_NODE];
        for (int b = 0; b < buckets.length; b++) {
            buckets[b] = ids.get(b % ids.size());
        }
    }

    String table() {
        return table;
    }

    /** The node IDs still in the maps. */
    synchronized List<Integer> nodeIds() {
        return List.copyOf(nodes.keySet());
    }

    /** Bucket → node ID, as the buckets map holds it now. */
    synchronized int[] buckets() {
        return buckets.clone();
    }

    /** The whole table, for {@code nft -f -}. */
    synchronized String ruleset() {
        StringBuilder s = new StringBuilder();
        s.append("table ip ").append(table).append(" {\n");
        s.append("    map cid_nodes {\n");
        s.append("        typeof @th,152,8 : ip daddr\n");
        s.append("        elements = { ");
        List<String> cids = new ArrayList<>();
        nodes.forEach((id, addr) -> cids.add(id + " : " + addr.getHostAddress()));
        s.append(String.join(", ", cids)).append(" }\n");
        s.append("    }\n");
        s.append("    map buckets {\n");
        s.append("        typeof jhash ip saddr . udp sport mod ").append(buckets.length).append(" : ip daddr\n");
        s.append("        elements = { ");
        List<String> elements = new ArrayList<>();
        for (int b = 0; b < buckets.length; b++) {
            elements.add(b + " : " + nodes.get(buckets[b]).getHostAddress());
        }
        s.append(String.join(", ", elements)).append(" }\n");
        s.append("    }\n");
        s.append("    chain prerouting {\n");
        s.append("        type nat hook prerouting priority dstnat; policy accept;\n");
        s.append("        ip daddr ").append(vip.getHostAddress()).append(" udp dport ").append(coapsPort)
                .append(" @th,64,8 25 @th,72,16 0xfefd dnat to @th,152,8 map @cid_nodes\n");
        s.append("        ip daddr ").append(vip.getHostAddress()).append(" udp dport { ").append(coapPort).append(", ")
                .append(coapsPort).append(" } dnat to jhash ip saddr . udp sport mod ").append(buckets.length)
                .append(" map @buckets\n");
        s.append("    }\n");
        s.append("}\n");
        return s.toString();
    }

    /**
     * Takes node {@code id} out: its CID entry goes, and its buckets are dealt to the survivors in
     * turn. Returns the edit as one nft script (applied atomically by {@code nft -f -}).
     *
     * @throws IllegalArgumentException for an ID not in the maps, or the last node
     */
    synchronized String remove(int id) {
        if (!nodes.containsKey(id)) {
            throw new IllegalArgumentException("node " + id + " is not in the balancer's maps " + nodes.keySet());
        }
        if (nodes.size() == 1) {
            throw new IllegalArgumentException("node " + id + " is the last one");
        }
        nodes.remove(id);
        List<Integer> survivors = new ArrayList<>(nodes.keySet());
        List<Integer> moved = new ArrayList<>();
        List<String> added = new ArrayList<>();
        int next = 0;
        for (int b = 0; b < buckets.length; b++) {
            if (buckets[b] == id) {
                buckets[b] = survivors.get(next++ % survivors.size());
                moved.add(b);
                added.add(b + " : " + nodes.get(buckets[b]).getHostAddress());
            }
        }
        StringBuilder s = new StringBuilder();
        s.append("delete element ip ").append(table).append(" cid_nodes { ").append(id).append(" }\n");
        s.append("delete element ip ").append(table).append(" buckets { ")
                .append(String.join(", ", moved.stream().map(String::valueOf).toList())).append(" }\n");
        s.append("add element ip ").append(table).append(" buckets { ").append(String.join(", ", added)).append(" }\n");
        return s.toString();
    }
}
