package io.stagecoach.bench.cli;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.Steps;
import io.stagecoach.core.coap.CoapUri;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The parsed command line of {@code stagecoach bench} (run, master and compare share the load
 * options). Immutable; {@link #parse} throws IllegalArgumentException naming the bad option.
 */
public record BenchOptions(LoadSpec load, List<Integer> steps, Path json, Path csv, Path hlog, Path html,
        boolean quiet, List<String> slaves, String exec, long startDelayMs, List<String> serverCmds,
        String serverCpus, String clientCpus, boolean noDefaultServers, String generator, double rate) {

    /**
     * The load generators: CoAPBench's Java event loops, or C: {@code coap-load} for coap (one
     * socket, or {@code c-sockets}: a socket per client) and {@code coap-tcp-load} for coap+tcp
     * ({@code c}: epoll, {@code c-uring}: io_uring, coap+tcp only).
     */
    public static final List<String> GENERATORS = List.of("java", "c", "c-sockets", "c-uring");

    public BenchOptions {
        if (!GENERATORS.contains(generator)) {
            throw new IllegalArgumentException("--generator must be one of " + GENERATORS + ", got '" + generator + "'");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("--rate must not be negative, got " + rate);
        }
        if (rate > 0 && generator.equals("java")) {
            throw new IllegalArgumentException("--rate needs the C generator (--generator c or c-sockets)");
        }
    }

    /** Whether the C generator {@code coap-load} runs the steps. */
    public boolean cGenerator() {
        return !generator.equals("java");
    }

    /** Whether {@code coap-tcp-load} and its echo run on io_uring ({@code --generator c-uring}). */
    public boolean uringGenerator() {
        return generator.equals("c-uring");
    }

    public static final String DEFAULT_URI = "coap://127.0.0.1:5683/benchmark";

    public static final String USAGE = """
            usage: stagecoach bench [run options]                 one machine, closed loop
                   stagecoach bench echo-server [--port N] [--bind ADDR]
                   stagecoach bench c-echo [--port N] [--bind ADDR] [--batch N]    recvmmsg/sendmmsg echo in C (gcc)
                   stagecoach bench cf-server [--port N] [--bind ADDR] [--no-dedup] [--tcp]   Californium 3.13.0
                   stagecoach bench tcp-echo-server [--port N] [--bind ADDR] [--io epoll|uring]
                                            answers every coap+tcp frame (C)
                   stagecoach bench sc-server [--port N] [--bind ADDR] [--protocol-threads N] [--dedup MODE]
                   stagecoach bench slave --listen PORT [--bind ADDR] [--allow-exec]
                   stagecoach bench master --slaves HOST:PORT,... [run options] [--exec CMD]
                   stagecoach bench compare [run options] [--server-cmd NAME=CMD]... [--no-default-servers]
                                            [--server-cpus LIST] [--client-cpus LIST]
                   stagecoach bench observe --server-cmd NAME[:PATH]=CMD... [--observers N] [--rounds R]
                                            [--server-cpus LIST] [--client-cpus LIST] [--runs K] [--json FILE]
                                            observe fan-out (C tool coap-observe; docs/benchmarks/observe-blockwise.md)
                   stagecoach bench blockwise --server-cmd NAME[:PATH]=CMD... [--bodies N] [--szx 6]
                                            [--before NAME=CMD] [--runs K] [--json FILE]   Block2 goodput (coap-block)
                   stagecoach bench scenario isolation [--uri coap://HOST:PORT] [--duration S] ...
                                            (ecoap §5.3.2; 'scenario isolation help' lists its options)
                   stagecoach bench scenario faults [--rate 0.01] [--kinds LIST] [--clients N] ...
                                            (ecoap §5.4; 'scenario faults help' lists its options)
                   stagecoach bench scenario flood [--attack S] [--quiet S] [--innocents N] ...
                                            (one host floods a -Xmx64m server; 'scenario flood help')
                   stagecoach bench cluster [--nodes 3] [--clients 60] ...   a node dies behind nftables
                                            (root; docs/cluster.md; 'cluster --help' lists its options)
            run options:
              --uri URI               target (default coap://127.0.0.1:5683/benchmark); coap+tcp://... runs
                                      the steps over CoAP over TCP (RFC 8323: a connection per client, CSM first)
              --generator java|c|c-uring   coap+tcp only: c runs each step with the C generator coap-tcp-load
                                      (epoll, one thread; GET, one path segment), built with gcc on first use;
                                      c-uring the same on io_uring (Linux 6.0+), and the compare's echo too
              --concurrency STEPS     10,100,1000 | FROM:TO (x10) | FROM:TO:xF | FROM:TO:+S (default 10,100,1000)
              --duration S            measured seconds per step (default 20)
              --warmup S              warm-up seconds per step (default 5)
              --cooldown S            cool-down seconds per step (default 2)
              --method get|post|put|delete|fetch   (default get)
              --payload-size N        payload bytes per request (default 0)
              --non                   NON requests instead of CON
              --timeout S             a request unanswered S after its first transmission is a timeout (default 10)
              --retransmit MS         retransmit a CON request (same MID, token) after MS ms, doubling, at most
                                      4 times (RFC 7252 §4.2); default 0 = never, as in the papers' runs
              --threads N             event-loop threads (default cores/2, 1..4)
              --generator java|c|c-sockets   the Java event loops (default), or the C generator coap-load
                                      (built with gcc on first use): 'c' sends from one socket, each client
                                      from its own loopback address, batched (recvmmsg/sendmmsg); 'c-sockets'
                                      one socket per client as the Java loops. IPv4, no --retransmit.
              --rate R                C generator only: offer at most R requests/s in all (CPU per request)
              --json FILE  --csv FILE  --hlog DIR  --html FILE
              --quiet                 no live progress on stderr
            """;

    /** Parses the options after the subcommand word. */
    public static BenchOptions parse(String[] args) {
        String uri = DEFAULT_URI;
        String steps = "10,100,1000";
        double duration = 20;
        double warmup = 5;
        double cooldown = 2;
        double timeout = 10;
        int retransmitMs = 0;
        String method = "GET";
        int payload = 0;
        boolean non = false;
        int threads = LoadSpec.defaultLoops();
        Path json = null;
        Path csv = null;
        Path hlog = null;
        Path html = null;
        boolean quiet = false;
        List<String> slaves = List.of();
        String exec = null;
        long startDelayMs = 1_000;
        List<String> serverCmds = new ArrayList<>();
        String serverCpus = null;
        String clientCpus = null;
        boolean noDefaults = false;
        String generator = "java";
        double rate = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--uri" -> uri = value(args, ++i, a);
                case "--concurrency", "-c" -> steps = value(args, ++i, a);
                case "--duration", "-d" -> duration = seconds(args, ++i, a);
                case "--warmup" -> warmup = seconds(args, ++i, a);
                case "--cooldown" -> cooldown = seconds(args, ++i, a);
                case "--timeout" -> timeout = seconds(args, ++i, a);
                case "--retransmit" -> retransmitMs = integer(args, ++i, a);
                case "--method" -> method = value(args, ++i, a);
                case "--payload-size" -> payload = integer(args, ++i, a);
                case "--non" -> non = true;
                case "--threads" -> threads = integer(args, ++i, a);
                case "--json" -> json = Path.of(value(args, ++i, a));
                case "--csv" -> csv = Path.of(value(args, ++i, a));
                case "--hlog" -> hlog = Path.of(value(args, ++i, a));
                case "--html" -> html = Path.of(value(args, ++i, a));
                case "--quiet", "-q" -> quiet = true;
                case "--slaves" -> slaves = List.of(value(args, ++i, a).split(","));
                case "--exec" -> exec = value(args, ++i, a);
                case "--start-delay-ms" -> startDelayMs = integer(args, ++i, a);
                case "--server-cmd" -> serverCmds.add(value(args, ++i, a));
                case "--server-cpus" -> serverCpus = value(args, ++i, a);
                case "--client-cpus" -> clientCpus = value(args, ++i, a);
                case "--no-default-servers" -> noDefaults = true;
                case "--generator" -> generator = value(args, ++i, a);
                case "--rate" -> rate = integer(args, ++i, a);
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        LoadSpec load = new LoadSpec(CoapUri.parse(uri), method, payload, !non, millis(timeout),
                millis(warmup), millis(duration), millis(cooldown), threads, Duration.ofMillis(retransmitMs));
        if (!GENERATORS.contains(generator)) {
            throw new IllegalArgumentException("--generator must be one of " + GENERATORS + ", got '" + generator + "'");
        }
        if (load.uri().isReliableTransport() && (generator.equals("c-sockets") || rate > 0)) {
            throw new IllegalArgumentException("coap+tcp takes --generator java, c or c-uring, without --rate");
        }
        if (!load.uri().isReliableTransport() && generator.equals("c-uring")) {
            throw new IllegalArgumentException("--generator c-uring is for coap+tcp (coap-tcp-load)");
        }
        return new BenchOptions(load, Steps.parse(steps), json, csv, hlog, html, quiet, slaves, exec,
                startDelayMs, List.copyOf(serverCmds), serverCpus, clientCpus, noDefaults, generator, rate);
    }

    private static Duration millis(double seconds) {
        return Duration.ofMillis(Math.round(seconds * 1000));
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }

    private static int integer(String[] args, int i, String name) {
        String v = value(args, i, name);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs an integer, got '" + v + "'", e);
        }
    }

    private static double seconds(String[] args, int i, String name) {
        String v = value(args, i, name);
        try {
            double d = Double.parseDouble(v);
            if (!(d >= 0) || d > 86_400) {
                throw new IllegalArgumentException(name + " must be 0..86400 seconds, got " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs seconds, got '" + v + "'", e);
        }
    }
}
