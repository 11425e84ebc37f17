package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.network.faults.FaultKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Flags of {@code stagecoach bench scenario faults}; immutable, validated on construction.
 *
 * @param clients    closed-loop CON GET clients on {@code /benchmark}, in both phases
 * @param retransmit the clients' first retransmission interval ({@link LoadSpec#retransmit()});
 *                   must be positive: a datagram lost with a dying receive thread is only
 *                   recovered by a retransmission (RFC 7252 §4.2)
 * @param rate       fault rate of each kind in {@code kinds}, in (0, 1]
 * @param kinds      the fault kinds injected in phase 2
 * @param seed       seed of the {@code FaultInjector}
 * @param drainLimit how long to wait, after the load stops, for the exchange store to empty
 * @param json       where to write the JSON report, or {@code null}
 */
public record FaultsOptions(Duration warmup, Duration duration, Duration cooldown, Duration timeout,
        Duration retransmit, int clients, int loops, double rate, Set<FaultKind> kinds, long seed,
        Duration drainLimit, Path json) {

    static final String USAGE = """
            usage: stagecoach bench scenario faults [options]
              Issue 11 "Faults": runs the plugtest server in this JVM on loopback UDP, drives
              /benchmark with retransmitting CON clients, first without faults (phase 1), then with
              faults injected at RATE (phase 2), then stops the load and waits for the exchange store
              to drain, destroys the server and looks for stagecoach- threads left. Exit 0 when the
              verdicts hold (phase 2 req/s >= 80 % of phase 1; phase 2 timeouts == 0; every dead
              receive thread replaced; exchange store 0 within the drain limit; no thread left),
              1 otherwise, 2 bad usage.
              --rate R                 fault rate per kind, (0, 1] (default 0.01)
              --kinds LIST             comma-separated: HANDLER_THROWS, LAYER_THROWS, RECEIVER_DIES,
                                       EXECUTOR_REJECTS (default all)
              --seed N                 fault injector seed (default 1)
              --clients N              clients on /benchmark (default 100)
              --retransmit MS          clients' first retransmission interval in ms (default 10)
              --duration S             measured seconds per phase (default 10)
              --warmup S               warm-up seconds per phase (default 3)
              --cooldown S             cool-down seconds per phase (default 1)
              --timeout S              a request unanswered this long is a timeout (default 5)
              --drain-limit S          longest wait for the exchange store to empty (default 5)
              --threads N              event loops (default cores/2, 1..4)
              --json FILE              also write the result as JSON
            """;

    public FaultsOptions {
        kinds = Set.copyOf(kinds);
        if (clients < 1) {
            throw new IllegalArgumentException("--clients must be >= 1, got " + clients);
        }
        if (!(rate > 0 && rate <= 1)) {
            throw new IllegalArgumentException("--rate must be in (0, 1], got " + rate);
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--kinds must name at least one kind");
        }
        if (retransmit.isZero() || retransmit.isNegative()) {
            throw new IllegalArgumentException("--retransmit must be positive: a lost datagram needs a retransmission");
        }
        if (drainLimit.isNegative()) {
            throw new IllegalArgumentException("--drain-limit must not be negative");
        }
        // LoadSpec validates the times and the loop count (the fields are not assigned yet here).
        LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1/benchmark")).withTimeout(timeout)
                .withTimes(warmup, duration, cooldown).withLoops(loops).withRetransmit(retransmit);
    }

    /** 100 clients, 1 % of every kind, 3 s warm-up, 10 s phases, 10 ms retransmission. */
    public static FaultsOptions defaults() {
        return new FaultsOptions(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(5), Duration.ofMillis(10), 100, LoadSpec.defaultLoops(), 0.01,
                EnumSet.allOf(FaultKind.class), 1, Duration.ofSeconds(5), null);
    }

    /** The retransmitting CON GET load spec of both phases against {@code uri}. */
    LoadSpec spec(CoapUri uri) {
        return LoadSpec.defaults(uri).withTimeout(timeout).withTimes(warmup, duration, cooldown).withLoops(loops)
                .withRetransmit(retransmit);
    }

    public FaultsOptions withTimes(Duration warmup, Duration duration, Duration cooldown) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                drainLimit, json);
    }

    public FaultsOptions withFaults(double rate, Set<FaultKind> kinds) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                drainLimit, json);
    }

    public FaultsOptions withClients(int clients) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                drainLimit, json);
    }

    /** Parses the flags after {@code scenario faults}. */
    public static FaultsOptions parse(String[] args) {
        FaultsOptions d = defaults();
        Duration warmup = d.warmup;
        Duration duration = d.duration;
        Duration cooldown = d.cooldown;
        Duration timeout = d.timeout;
        Duration retransmit = d.retransmit;
        Duration drain = d.drainLimit;
        int clients = d.clients;
        int loops = d.loops;
        double rate = d.rate;
        Set<FaultKind> kinds = d.kinds;
        long seed = d.seed;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rate" -> rate = number(Options.value(args, ++i, a), a);
                case "--kinds" -> kinds = kinds(Options.value(args, ++i, a));
                case "--seed" -> seed = (long) Options.integer(args, ++i, a);
                case "--clients" -> clients = Options.integer(args, ++i, a);
                case "--retransmit" -> retransmit = Duration.ofMillis(Options.integer(args, ++i, a));
                case "--duration", "-d" -> duration = Options.seconds(args, ++i, a);
                case "--warmup" -> warmup = Options.seconds(args, ++i, a);
                case "--cooldown" -> cooldown = Options.seconds(args, ++i, a);
                case "--timeout" -> timeout = Options.seconds(args, ++i, a);
                case "--drain-limit" -> drain = Options.seconds(args, ++i, a);
                case "--threads" -> loops = Options.integer(args, ++i, a);
                case "--json" -> json = Path.of(Options.value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                drain, json);
    }

    private static double number(String v, String name) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a number, got '" + v + "'", e);
        }
    }

    private static Set<FaultKind> kinds(String list) {
        Set<FaultKind> out = EnumSet.noneOf(FaultKind.class);
        for (String k : list.split(",")) {
            try {
                out.add(FaultKind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault kind '" + k.trim() + "' (known: "
                        + Arrays.toString(FaultKind.values()) + ")", e);
            }
        }
        return out;
    }
}
