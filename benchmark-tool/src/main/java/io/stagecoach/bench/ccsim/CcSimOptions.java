package io.stagecoach.bench.ccsim;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The command line of {@code ./stagecoach cc-sim}, parsed and validated. Immutable. */
record CcSimOptions(List<Integer> clients, List<Long> buffers, List<Workload> workloads, List<Strategy> strategies,
        int replications, long seed, int exchanges, Path json, Path html, Path svg, boolean help) {

    static final String USAGE = """
            usage: ./stagecoach cc-sim [options]
              Reproduces Jarvinen et al., "Is CoAP Congestion Safe?" (ANRW '18) in simulation:
              the real client/server stacks over a simulated constrained link on a virtual clock.
              --clients N[,N..]      concurrent clients (default 400; paper: 1,10,50,100,200,400)
              --buffer B[,B..]       bottleneck buffer bytes (default 1410000; paper: 2500,14100,28200,1410000)
              --workload W[,W..]     continuous | random (default continuous)
              --cc S[,S..]           default,cocoa,default-fb1,default-fb2,cocoa-fb1,cocoa-fb2 (default all)
              --replications R       seeded replications per cell (default 1; paper: 20)
              --seed S               base seed; replication r uses S + r (default 1)
              --exchanges E          successful pairs per client (default 50)
              --json FILE            write the results as JSON
              --html FILE            write tables and the figure as HTML
              --svg FILE             write the unnecessary-retransmissions figure (like the paper's Fig. 4)
            """;

    static CcSimOptions parse(String... args) {
        List<Integer> clients = List.of(400);
        List<Long> buffers = List.of(1_410_000L);
        List<Workload> workloads = List.of(Workload.CONTINUOUS);
        List<Strategy> strategies = List.of(Strategy.values());
        int replications = 1;
        long seed = 1;
        int exchanges = Scenario.PAPER_EXCHANGES;
        Path json = null;
        Path html = null;
        Path svg = null;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help") || a.equals("help")) {
                help = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value" : "unknown argument " + a);
            }
            String v = args[++i];
            switch (a) {
                case "--clients" -> clients = list(v, s -> positiveInt(a, s));
                case "--buffer" -> buffers = list(v, s -> (long) positiveInt(a, s));
                case "--workload" -> workloads = list(v, Workload::parse);
                case "--cc" -> strategies = list(v, Strategy::parse);
                case "--replications" -> replications = positiveInt(a, v);
                case "--seed" -> seed = parseLong(a, v);
                case "--exchanges" -> exchanges = positiveInt(a, v);
                case "--json" -> json = Path.of(v);
                case "--html" -> html = Path.of(v);
                case "--svg" -> svg = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new CcSimOptions(clients, buffers, workloads, strategies, replications, seed, exchanges, json, html,
                svg, help);
    }

    /** Every cell of the grid, in report order: workload, clients, buffer, strategy. */
    List<Scenario> scenarios() {
        List<Scenario> out = new ArrayList<>();
        for (Workload w : workloads) {
            for (int n : clients) {
                for (long b : buffers) {
                    for (Strategy s : strategies) {
                        out.add(Scenario.paper(s, w, n, b).withExchanges(exchanges));
                    }
                }
            }
        }
        return out;
    }

    /** The grid as options, for report headers. */
    String commandLine() {
        return "--clients " + join(clients, String::valueOf) + " --buffer " + join(buffers, String::valueOf)
                + " --workload " + join(workloads, Workload::cliName) + " --cc " + join(strategies, Strategy::cliName)
                + " --replications " + replications + " --seed " + seed + " --exchanges " + exchanges;
    }

    private static <T> String join(List<T> items, Function<T, String> name) {
        return String.join(",", items.stream().map(name).toList());
    }

    private static <T> List<T> list(String csv, Function<String, T> item) {
        List<T> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(item.apply(s.trim()));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("empty list: '" + csv + "'");
        }
        return List.copyOf(out);
    }

    private static int positiveInt(String option, String v) {
        long n = parseLong(option, v);
        if (n < 1 || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(option + " must be a positive integer: " + v);
        }
        return (int) n;
    }

    private static long parseLong(String option, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects a number, got '" + v + "'");
        }
    }
}
