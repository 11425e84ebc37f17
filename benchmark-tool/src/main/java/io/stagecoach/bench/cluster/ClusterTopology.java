package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster on one Linux host (docs/cluster.md): network namespaces for the clients, the balancer
 * and each node, joined by veth pairs, with the balancer's nftables table ({@link BalancerRules}).
 *
 * <pre>
 *  PREFIX-cli 10.200.0.2 ──veth── 10.200.0.1 (the virtual address) PREFIX-lb ──veth── 10.201.k.2 PREFIX-nk
 *                                             10.201.k.1 ─────────────────┘  (k = 1..N; default route via .1)
 * </pre>
 *
 * Every name carries a random prefix, so runs side by side do not meet; the veth pairs are made
 * inside the balancer's namespace and vanish with it. {@link #close()} deletes every namespace
 * made (and with them the rules, the conntrack entries and the links); a shutdown hook does the
 * same if the JVM ends first. Needs root, {@code ip} (iproute2), {@code nft} and {@code conntrack}.
 */
public final class ClusterTopology implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterTopology.class);

    public static final int COAP_PORT = 5683;
    public static final int COAPS_PORT = 5684;
    static final String VIP = "10.200.0.1";
    static final String CLIENT = "10.200.0.2";

    private final String prefix;
    private final int nodeCount;
    private final List<String> created = new ArrayList<>();
    private final Thread cleanup;
    private BalancerRules rules;
    private boolean closed;

    private ClusterTopology(String prefix, int nodeCount) {
        this.prefix = prefix;
        this.nodeCount = nodeCount;
        this.cleanup = new Thread(this::close, "stagecoach-cluster-cleanup");
    }

    /**
     * Builds clients, balancer and {@code nodes} node namespaces with the balancer's rules.
     *
     * @throws IOException when a command fails; what was made is removed again
     */
    public static ClusterTopology create(int nodes) throws IOException {
        if (nodes < 1 || nodes > 200) {
            throw new IllegalArgumentException("1..200 nodes, got " + nodes);
        }
        byte[] id = new byte[2];
        new SecureRandom().nextBytes(id);
        ClusterTopology t = new ClusterTopology("sc" + HexFormat.of().formatHex(id), nodes);
        Runtime.getRuntime().addShutdownHook(t.cleanup);
        try {
            t.build();
            return t;
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
    }

    private void build() throws IOException {
        namespace(clients());
        namespace(balancer());
        HostCommand.run("ip", "-n", balancer(), "link", "add", "cli0", "type", "veth", "peer", "name", "eth0", "netns",
                clients());
        address(balancer(), "cli0", VIP + "/24");
        address(clients(), "eth0", CLIENT + "/24");
        Map<Integer, Inet4Address> nodes = new LinkedHashMap<>();
        for (int k = 1; k <= nodeCount; k++) {
            namespace(node(k));
            HostCommand.run("ip", "-n", balancer(), "link", "add", "n" + k, "type", "veth", "peer", "name", "eth0",
                    "netns", node(k));
            address(balancer(), "n" + k, "10.201." + k + ".1/24");
            address(node(k), "eth0", "10.201." + k + ".2/24");
            HostCommand.run("ip", "-n", node(k), "route", "add", "default", "via", "10.201." + k + ".1");
            nodes.put(k, nodeAddress(k));
        }
        HostCommand.run(HostCommand.inNamespace(balancer(), "sysctl", "-qw", "net.ipv4.ip_forward=1"));
        rules = new BalancerRules("stagecoach", (Inet4Address) InetAddress.getByName(VIP), COAP_PORT, COAPS_PORT, nodes);
        HostCommand.feed(rules.ruleset(), HostCommand.inNamespace(balancer(), "nft", "-f", "-"));
        LOG.info("cluster {}: {} nodes behind {} (nftables table ip {})", prefix, nodeCount, VIP, rules.table());
    }

    private void namespace(String name) throws IOException {
        HostCommand.run("ip", "netns", "add", name);
        created.add(name);
        HostCommand.run("ip", "-n", name, "link", "set", "lo", "up");
    }

    private static void address(String namespace, String device, String cidr) throws IOException {
        HostCommand.run("ip", "-n", namespace, "addr", "add", cidr, "dev", device);
        HostCommand.run("ip", "-n", namespace, "link", "set", device, "up");
    }

    /** The random prefix of every name of this run. */
    public String prefix() {
        return prefix;
    }

    public String clients() {
        return prefix + "-cli";
    }

    public String balancer() {
        return prefix + "-lb";
    }

    /** The namespace of node {@code k} (1-based). */
    public String node(int k) {
        return prefix + "-n" + k;
    }

    public int nodeCount() {
        return nodeCount;
    }

    /** The address clients send to (the service's virtual address). */
    public Inet4Address vip() {
        return ipv4(VIP);
    }

    public Inet4Address clientAddress() {
        return ipv4(CLIENT);
    }

    public Inet4Address nodeAddress(int k) {
        return ipv4("10.201." + k + ".2");
    }

    /** The node whose address is {@code address}, or 0. */
    public int nodeOf(InetAddress address) {
        for (int k = 1; k <= nodeCount; k++) {
            if (nodeAddress(k).equals(address)) {
                return k;
            }
        }
        return 0;
    }

    public BalancerRules rules() {
        return rules;
    }

    /** The balancer's table as the kernel holds it ({@code nft list table}). */
    public String listRules() throws IOException {
        return HostCommand.run(HostCommand.inNamespace(balancer(), "nft", "list", "table", "ip", rules.table()));
    }

    /**
     * Takes node {@code k} out of the balancer, as kube-proxy does when an endpoint goes away: the
     * maps lose it (one atomic nft transaction), then the UDP conntrack entries still translating
     * to it are deleted ({@code conntrack -D -p udp --dst-nat ADDR}), so that the flows pinned to
     * it reach a survivor with their next datagram.
     *
     * @return the conntrack entries deleted
     */
    public int removeNode(int k) throws IOException {
        HostCommand.feed(rules.remove(k), HostCommand.inNamespace(balancer(), "nft", "-f", "-"));
        return deleteConntrack(k);
    }

    /** Deletes the UDP conntrack entries translated to node {@code k}; how many there were. */
    public int deleteConntrack(int k) throws IOException {
        // exit status 1 with "0 flow entries have been deleted" when there were none
        HostCommand.Result r = HostCommand.attempt(null, HostCommand.inNamespace(balancer(), "conntrack", "-D", "-p",
                "udp", "--dst-nat", nodeAddress(k).getHostAddress()));
        return flowCount(r.errors() + r.output());
    }

    /** The balancer's UDP conntrack entries: one line per flow, {@code conntrack -L} format. */
    public List<String> conntrack() throws IOException {
        HostCommand.Result r = HostCommand.attempt(null, HostCommand.inNamespace(balancer(), "conntrack", "-L", "-p",
                "udp"));
        List<String> flows = new ArrayList<>();
        for (String line : r.output().split("\n")) {
            if (line.startsWith("udp")) {
                flows.add(line);
            }
        }
        return flows;
    }

    /**
     * The node a client's flow from {@code clientPort} to {@code vipPort} is translated to, from
     * the balancer's conntrack table; 0 when there is no such flow.
     */
    public int nodeOfFlow(int clientPort, int vipPort) throws IOException {
        for (String flow : conntrack()) {
            ConntrackFlow f = ConntrackFlow.parse(flow);
            if (f != null && f.origSourcePort() == clientPort && f.origDestPort() == vipPort) {
                return nodeOf(f.replySource());
            }
        }
        return 0;
    }

    static int flowCount(String conntrackOutput) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) flow entries have been deleted")
                .matcher(conntrackOutput);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** Deletes every namespace made (their links, rules and conntrack tables go with them). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                HostCommand.run("ip", "netns", "del", created.get(i));
            } catch (IOException e) {
                LOG.warn("could not delete namespace {}: {}", created.get(i), e.getMessage());
            }
        }
        if (Thread.currentThread() != cleanup) {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // the JVM is shutting down; the hook runs close() again, which returns at once
            }
        }
    }

    /** Whether a namespace of this run still exists ({@code ip netns list}). */
    public boolean anyNamespaceLeft() throws IOException {
        String list = HostCommand.run("ip", "netns", "list");
        for (String line : list.split("\n")) {
            if (line.startsWith(prefix + "-")) {
                return true;
            }
        }
        return false;
    }

    private static Inet4Address ipv4(String literal) {
        try {
            return (Inet4Address) InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
