package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.core.coap.CoapUri;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Flags of {@code stagecoach bench scenario isolation}; immutable, validated by {@link #parse}.
 *
 * @param base         server to test ({@code coap://host:port}, path ignored), or {@code null}
 *                     to start the plugtest server in this JVM
 * @param clientsLight virtual clients on {@code /benchmark}, in both phases
 * @param clientsHeavy virtual clients on {@code /fibonacci?n=N}, in phase 2
 * @param n            the Fibonacci index each heavy request asks for
 * @param json         where to write the JSON report, or {@code null}
 */
public record IsolationOptions(CoapUri base, Duration warmup, Duration duration, Duration cooldown,
        Duration timeout, int clientsLight, int clientsHeavy, int n, int loops, Path json) {

    static final String USAGE = """
            usage: stagecoach bench scenario isolation [options]
              The ecoap thesis §5.3.2 test: phase 1 runs the light clients on /benchmark alone,
              phase 2 runs them again next to heavy clients on /fibonacci?n=N. Exit 0 when the
              verdicts hold (light: 0 timeouts in phase 2, p99 phase 2 <= 5 x p99 phase 1;
              heavy: every request answered, 2.05 or 5.03, 0 timeouts), 1 otherwise, 2 bad usage.
              --uri coap://HOST:PORT   external server (default: the plugtest server in this JVM)
              --duration S             measured seconds per phase (default 20)
              --warmup S               warm-up seconds per phase (default 5)
              --cooldown S             cool-down seconds per phase (default 2)
              --timeout S              a request unanswered this long is a timeout (default 10)
              --clients-light N        clients on /benchmark (default 100)
              --clients-heavy N        clients on /fibonacci (default 100)
              --n N                    Fibonacci index, 0..45 (default 27)
              --threads N              event loops per client group (default cores/2, 1..4)
              --json FILE              also write the result as JSON
            """;

    public IsolationOptions {
        if (clientsLight < 1 || clientsHeavy < 1) {
            throw new IllegalArgumentException("--clients-light and --clients-heavy must be >= 1");
        }
        if (n < 0 || n > 45) {
            throw new IllegalArgumentException("--n must be 0..45 (the plugtest's limit), got " + n);
        }
        if (base != null && base.isSecure()) {
            throw new IllegalArgumentException("coaps is not supported by the benchmark: " + base);
        }
        // LoadSpec validates the times and the loop count (the fields are not assigned yet here).
        LoadSpec.defaults(CoapUri.parse("coap://127.0.0.1/benchmark")).withTimeout(timeout)
                .withTimes(warmup, duration, cooldown).withLoops(loops);
    }

    /** The defaults of the thesis' test: 100 + 100 clients, n = 27, 5 s warm-up, 20 s phases. */
    public static IsolationOptions defaults() {
        return new IsolationOptions(null, Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(2),
                Duration.ofSeconds(10), 100, 100, 27, LoadSpec.defaultLoops(), null);
    }

    /** A CON GET load spec with these times against {@code uri}. */
    LoadSpec spec(CoapUri uri) {
        return LoadSpec.defaults(uri).withTimeout(timeout).withTimes(warmup, duration, cooldown).withLoops(loops);
    }

    public IsolationOptions withBase(CoapUri base) {
        return new IsolationOptions(base, warmup, duration, cooldown, timeout, clientsLight, clientsHeavy, n, loops,
                json);
    }

    public IsolationOptions withTimes(Duration warmup, Duration duration, Duration cooldown) {
        return new IsolationOptions(base, warmup, duration, cooldown, timeout, clientsLight, clientsHeavy, n, loops,
                json);
    }

    public IsolationOptions withClients(int light, int heavy, int n) {
        return new IsolationOptions(base, warmup, duration, cooldown, timeout, light, heavy, n, loops, json);
    }

    /** Parses the flags after {@code scenario isolation}. */
    public static IsolationOptions parse(String[] args) {
        IsolationOptions o = defaults();
        CoapUri base = null;
        Duration warmup = o.warmup;
        Duration duration = o.duration;
        Duration cooldown = o.cooldown;
        Duration timeout = o.timeout;
        int light = o.clientsLight;
        int heavy = o.clientsHeavy;
        int n = o.n;
        int loops = o.loops;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--uri" -> base = CoapUri.parse(Options.value(args, ++i, a));
                case "--duration", "-d" -> duration = Options.seconds(args, ++i, a);
                case "--warmup" -> warmup = Options.seconds(args, ++i, a);
                case "--cooldown" -> cooldown = Options.seconds(args, ++i, a);
                case "--timeout" -> timeout = Options.seconds(args, ++i, a);
                case "--clients-light" -> light = Options.integer(args, ++i, a);
                case "--clients-heavy" -> heavy = Options.integer(args, ++i, a);
                case "--n" -> n = Options.integer(args, ++i, a);
                case "--threads" -> loops = Options.integer(args, ++i, a);
                case "--json" -> json = Path.of(Options.value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        return new IsolationOptions(base, warmup, duration, cooldown, timeout, light, heavy, n, loops, json);
    }
}
