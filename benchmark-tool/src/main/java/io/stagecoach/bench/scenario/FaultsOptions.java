package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.examples.faults.FaultKind;
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
 * @param kinds      the fault kinds injected in the faulty phases
 * @param rounds     judged rounds, each a fault-free and a faulty phase in alternating order
 * @param seed       seed of the {@code FaultInjector}
 * @param drainLimit how long to wait, after the load stops, for the exchange store to empty
 * @param json       where to write the JSON report, or {@code null}
 */
public record FaultsOptions(Duration warmup, Duration duration, Duration cooldown, Duration timeout,
        Duration retransmit, int clients, int loops, double rate, Set<FaultKind> kinds, long seed, int rounds,
        Duration drainLimit, Path json) {

    static final String USAGE = """
            usage: stagecoach bench scenario faults [options]
              Runs the plugtest server in this JVM on loopback UDP and drives
              /benchmark with retransmitting CON clients: one unjudged fault-free warm-up phase, then
              N rounds of a fault-free phase and a faulty phase (each kind at RATE) back to back,
              odd rounds clean first, even rounds faulty first. Then it stops the load, waits for the
              exchange store to drain, destroys the server and looks for stagecoach- threads left.
              Exit 0 when the verdicts hold (median faulty req/s >= 80 % of median fault-free req/s;
              no timeout in any faulty phase; every dead receive thread replaced; every injected
              handler/layer fault answered 5.00, rejection 5.03; exchange store 0 within the drain
              limit; no thread left), 1 otherwise, 2 bad usage. A phase lasts warm-up + duration +
              cool-down; the run about (2N + 1) phases.
              --rate R                 fault rate per kind, (0, 1] (default 0.01)
              --kinds LIST             comma-separated: HANDLER_THROWS, LAYER_THROWS, RECEIVER_DIES,
                                       EXECUTOR_REJECTS (default all)
              --seed N                 fault injector seed (default 1)
              --rounds N               judged rounds, >= 1 (default 3)
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
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be >= 1, got " + rounds);
        }
        if (drainLimit.isNegative()) {
            throw new IllegalArgumentException("--drain-limit must not be negative");
        }
        // LoadSpec validates the times and the loop count (the fields are not assigned yet here).
        LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1/benchmark")).withTimeout(timeout)
                .withTimes(warmup, duration, cooldown).withLoops(loops).withRetransmit(retransmit);
    }

    /** 100 clients, 1 % of every kind, 3 rounds, 3 s warm-up, 10 s phases, 10 ms retransmission. */
    public static FaultsOptions defaults() {
        return new FaultsOptions(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(5), Duration.ofMillis(10), 100, LoadSpec.defaultLoops(), 0.01,
                EnumSet.allOf(FaultKind.class), 1, 3, Duration.ofSeconds(5), null);
    }

    /** The retransmitting CON GET load spec of every phase against {@code uri}. */
    LoadSpec spec(CoapUri uri) {
        return LoadSpec.defaults(uri).withTimeout(timeout).withTimes(warmup, duration, cooldown).withLoops(loops)
                .withRetransmit(retransmit);
    }

    public FaultsOptions withTimes(Duration warmup, Duration duration, Duration cooldown) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                rounds, drainLimit, json);
    }

    public FaultsOptions withFaults(double rate, Set<FaultKind> kinds) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                rounds, drainLimit, json);
    }

    public FaultsOptions withRounds(int rounds) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                rounds, drainLimit, json);
    }

    public FaultsOptions withClients(int clients) {
        return new FaultsOptions(warmup, duration, cooldown, timeout, retransmit, clients, loops, rate, kinds, seed,
                rounds, drainLimit, json);
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
        int rounds = d.rounds;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rate" -> rate = number(Options.value(args, ++i, a), a);
                case "--kinds" -> kinds = kinds(Options.value(args, ++i, a));
                case "--seed" -> seed = (long) Options.integer(args, ++i, a);
                case "--rounds" -> rounds = Options.integer(args, ++i, a);
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
                rounds, drain, json);
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
