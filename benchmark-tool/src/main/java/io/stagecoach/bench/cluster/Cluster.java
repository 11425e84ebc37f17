package io.stagecoach.bench.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A running cluster: the {@link ClusterTopology} and one real {@code ./stagecoach server} per node
 * namespace (the launcher's main class and arguments, on this class path), each with
 * {@code --node-id k}. Programs for the clients' namespace (the probe, CoAPBench, the CLI) start
 * through {@link #inClients}. {@link #close()} ends every process, then removes the topology.
 */
public final class Cluster implements AutoCloseable {

    /** The launcher's entry point: {@code ./stagecoach server ...} runs exactly this. */
    static final String LAUNCHER = "io.stagecoach.examples.Launcher";
    static final Duration NODE_START = Duration.ofSeconds(60);

    private final ClusterTopology topology;
    private final Path dir;
    private final List<String> jvmOptions;
    private final Map<Integer, NamespacedJvm> nodes = new TreeMap<>();
    private final List<NamespacedJvm> clients = new ArrayList<>();

    private Cluster(ClusterTopology topology, Path dir, List<String> jvmOptions) {
        this.topology = topology;
        this.dir = dir;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /**
     * Builds the topology and starts {@code nodes} servers in parallel, waiting for each one's
     * ready line.
     *
     * @param dir        where the processes' output goes
     * @param jvmOptions for every JVM started (nodes and client programs)
     * @param serverArgs added to every node's {@code server --port 5683 --node-id k}
     */
    public static Cluster start(int nodes, Path dir, List<String> jvmOptions, List<String> serverArgs)
            throws IOException {
        Cluster c = new Cluster(ClusterTopology.create(nodes), dir, jvmOptions);
        try {
            for (int k = 1; k <= nodes; k++) {
                List<String> args = new ArrayList<>(List.of("server", "--port", Integer.toString(ClusterTopology.COAP_PORT),
                        "--node-id", Integer.toString(k)));
                args.addAll(serverArgs);
                c.nodes.put(k, NamespacedJvm.start("node" + k, c.topology.node(k), dir, jvmOptions, "logback.xml",
                        LAUNCHER, args));
            }
            for (NamespacedJvm node : c.nodes.values()) {
                node.awaitLines("listening on coap://", 1, NODE_START);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public ClusterTopology topology() {
        return topology;
    }

    NamespacedJvm node(int k) {
        return nodes.get(k);
    }

    /** {@code coap://VIP:5683/path} (or {@code coaps} on 5684). */
    public String uri(String scheme, String path) {
        int port = scheme.equals("coaps") ? ClusterTopology.COAPS_PORT : ClusterTopology.COAP_PORT;
        return scheme + "://" + topology.vip().getHostAddress() + ":" + port + "/" + path;
    }

    /** Starts {@code mainClass args} in the clients' namespace. */
    NamespacedJvm inClients(String name, String mainClass, String logback, List<String> args) throws IOException {
        NamespacedJvm p = NamespacedJvm.start(name, topology.clients(), dir, jvmOptions, logback, mainClass, args);
        synchronized (clients) {
            clients.add(p);
        }
        return p;
    }

    /** {@code ./stagecoach client ARGS} in the clients' namespace. */
    NamespacedJvm client(String name, List<String> args) throws IOException {
        List<String> all = new ArrayList<>(List.of("client"));
        all.addAll(args);
        return inClients(name, LAUNCHER, "logback.xml", all);
    }

    /** The probe in the clients' namespace against the virtual address. */
    NamespacedJvm probe(String name, int clientCount, Duration duration, long intervalMillis, long ackTimeoutMillis)
            throws IOException {
        return inClients(name, FailoverProbe.class.getName(), "logback-bench.xml", List.of(
                "--target", topology.vip().getHostAddress() + ":" + ClusterTopology.COAP_PORT,
                "--clients", Integer.toString(clientCount), "--duration", Double.toString(duration.toMillis() / 1000.0),
                "--interval", Long.toString(intervalMillis), "--ack-timeout", Long.toString(ackTimeoutMillis)));
    }

    /** CoAPBench (closed loop, CON GET /benchmark) in the clients' namespace against the virtual address. */
    NamespacedJvm coapBench(String name, int concurrency, Duration duration, long retransmitMillis, Path json)
            throws IOException {
        return inClients(name, "io.stagecoach.bench.BenchMain", "logback-bench.xml", List.of("bench",
                "--uri", uri("coap", "benchmark"), "--concurrency", Integer.toString(concurrency),
                "--duration", Double.toString(duration.toMillis() / 1000.0), "--warmup", "0", "--cooldown", "0",
                "--timeout", "30", "--retransmit", Long.toString(retransmitMillis), "--threads", "1", "--quiet",
                "--json", json.toString()));
    }

    /** SIGKILL to node {@code k}: it vanishes without a word (its namespace and address stay). */
    void kill(int k) {
        nodes.get(k).kill();
    }

    /** SIGTERM to node {@code k}: with {@code --drain} it drains, then stops. */
    void terminate(int k) {
        nodes.get(k).terminate();
    }

    @Override
    public void close() {
        synchronized (clients) {
            clients.forEach(NamespacedJvm::close);
        }
        nodes.values().forEach(NamespacedJvm::close);
        topology.close();
    }
}
