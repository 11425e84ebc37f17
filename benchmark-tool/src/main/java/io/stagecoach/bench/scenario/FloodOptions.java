package io.stagecoach.bench.scenario;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Flags of {@code stagecoach bench scenario flood}; immutable, validated on construction.
 *
 * @param quiet           length of each phase without attack (before, between, after)
 * @param attack          length of each attack phase; the flood also stops by itself after
 *                        this much real time
 * @param innocents       innocent clients on 127.0.0.1
 * @param think           pause between an innocent client's answer and its next request
 * @param retransmit      an innocent request's first retransmission interval (then doubled, 4
 *                        retransmissions at most)
 * @param timeout         an innocent request unanswered this long is a timeout
 * @param unsolicitedPorts sockets of attack (a) on the attacker's address
 * @param requestPorts    sockets of attack (b)
 * @param attackThreads   sending threads of each attack
 * @param attacker        the attacker's host address (a loopback address other than 127.0.0.1)
 * @param victim          the spoofed victim's address (another one)
 * @param watch           window after a spoofed request in which its answers are also counted
 *                        on their own (the issue counted notifications over 8 s)
 * @param heap            {@code -Xmx} of the server's JVM
 * @param blockSize       the server's block size and maximum message size (the 1024)
 * @param notifyMillis    period of the plugtest's observable resources (the 100 ms)
 * @param json            where to write the JSON report, or {@code null}
 * @param serverCommand   a shell command that starts the server to attack, {@code {port}} standing
 *                        for the port it must bind on 127.0.0.1, or {@code null} for the plugtest
 *                        server of this build in its own JVM; such a server reports no counters,
 *                        and {@code heap}, {@code blockSize} and {@code notifyMillis} are the
 *                        command's business
 */
public record FloodOptions(Duration quiet, Duration attack, int innocents, Duration think, Duration retransmit,
        Duration timeout, int unsolicitedPorts, int requestPorts, int attackThreads, InetAddress attacker,
        InetAddress victim, Duration watch, String heap, int blockSize, long notifyMillis, Path json,
        String serverCommand) {

    static final String USAGE = """
            usage: stagecoach bench scenario flood [options]
              Starts the plugtest server in its own JVM (-Xmx64m, default configuration, block size
              1024, observable resources changing every 100 ms) on 127.0.0.1 and attacks it from one
              host over real UDP while innocent clients on 127.0.0.1 run closed loops of CON GET
              /benchmark. Phases: before; (a) unsolicited CON 2.05 responses '40 45 MID' from 60
              ports of 127.0.0.66 at the highest rate the machine allows; between; (b) CON GET,
              NON GET and CON POST /benchmark from 1,200 ports of 127.0.0.66; after. Spoofed
              requests from 127.0.0.77 (GET /.well-known/core, /large, observe registrations) are
              never answered; what the server sends them is counted until the end.
              Exit 0 when the verdicts hold (innocent success >= 99 % in every phase; no innocent
              request refused; each spoofed request drew <= 3 x its bytes, observe registrations
              included; the server alive at the end; no thread left), 1 otherwise, 2 bad usage.
              Takes about 3 x quiet + 2 x attack + the server's start and the last requests' timeout.
              --quiet S                length of the phases without attack (default 5)
              --attack S               length of each attack phase (default 5)
              --innocents N            innocent clients (default 4)
              --think MS               pause before an innocent client's next request (default 10)
              --retransmit MS          innocent clients' first retransmission interval (default 250)
              --timeout S              an innocent request unanswered this long fails (default 5)
              --unsolicited-ports N    sockets of attack (a) (default 60)
              --request-ports N        sockets of attack (b) (default 1200)
              --attack-threads N       sending threads per attack (default 1)
              --attacker ADDR          attacker's address (default 127.0.0.66)
              --victim ADDR            spoofed victim's address (default 127.0.0.77)
              --watch S                window counted on its own after a spoofed request (default 8)
              --heap SIZE              -Xmx of the server JVM (default 64m)
              --block-size BYTES       server block size, 16..1024 (default 1024)
              --notify-ms MS           period of /obs, /obs-non, /obs-large (default 100)
              --json FILE              also write the result as JSON
              --server-cmd CMD         attack the server this shell command starts instead, {port}
                                       standing for the port it must bind on 127.0.0.1 (e.g. an
                                       older build: "env STAGECOACH_JAVA_OPTS=-Xmx64m
                                       OLD/stagecoach server --bind 127.0.0.1 --port {port}
                                       --block-size 1024 --notify-ms 100"); up once it answers a
                                       CoAP ping; no server counters; --heap, --block-size and
                                       --notify-ms do not apply
            """;

    public FloodOptions {
        requirePositive(quiet, "--quiet");
        requirePositive(attack, "--attack");
        requirePositive(retransmit, "--retransmit");
        requirePositive(timeout, "--timeout");
        requirePositive(watch, "--watch");
        if (think.isNegative()) {
            throw new IllegalArgumentException("--think must not be negative");
        }
        if (innocents < 1 || innocents > 1_000) {
            throw new IllegalArgumentException("--innocents must be 1..1000, got " + innocents);
        }
        if (unsolicitedPorts < 1 || requestPorts < 1 || unsolicitedPorts > 10_000 || requestPorts > 10_000) {
            throw new IllegalArgumentException("--unsolicited-ports and --request-ports must be 1..10000");
        }
        if (attackThreads < 1 || attackThreads > 16) {
            throw new IllegalArgumentException("--attack-threads must be 1..16, got " + attackThreads);
        }
        if (!attacker.isLoopbackAddress() || !victim.isLoopbackAddress()) {
            throw new IllegalArgumentException("--attacker and --victim must be loopback addresses: the scenario "
                    + "floods 127.0.0.1 and nothing else");
        }
        InetAddress innocent = InetAddress.getLoopbackAddress();
        if (attacker.equals(innocent) || victim.equals(innocent) || attacker.equals(victim)) {
            throw new IllegalArgumentException("attacker, victim and the innocent clients (" + innocent.getHostAddress()
                    + ") need three different addresses: the server budgets per address");
        }
        if (blockSize < 16 || blockSize > 1024 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("--block-size must be a power of two 16..1024, got " + blockSize);
        }
        if (notifyMillis < 1) {
            throw new IllegalArgumentException("--notify-ms must be positive");
        }
        if (!heap.matches("[1-9][0-9]*[kmgKMG]?")) {
            throw new IllegalArgumentException("--heap must be a size such as 64m, got '" + heap + "'");
        }
        if (serverCommand != null && (serverCommand.isBlank() || !serverCommand.contains("{port}"))) {
            throw new IllegalArgumentException("--server-cmd needs a command with {port}, got '" + serverCommand + "'");
        }
    }

    /** The set-up: 5-s phases, 4 innocents, 60 + 1,200 attacker ports, -Xmx64m, 1024-byte blocks. */
    public static FloodOptions defaults() {
        return new FloodOptions(Duration.ofSeconds(5), Duration.ofSeconds(5), 4, Duration.ofMillis(10),
                Duration.ofMillis(250), Duration.ofSeconds(5), 60, 1_200, 1, address("127.0.0.66"),
                address("127.0.0.77"), Duration.ofSeconds(8), "64m", 1024, 100, null, null);
    }

    public FloodOptions withTimes(Duration quiet, Duration attack) {
        return new FloodOptions(quiet, attack, innocents, think, retransmit, timeout, unsolicitedPorts, requestPorts,
                attackThreads, attacker, victim, watch, heap, blockSize, notifyMillis, json, serverCommand);
    }

    public FloodOptions withPorts(int unsolicited, int request) {
        return new FloodOptions(quiet, attack, innocents, think, retransmit, timeout, unsolicited, request,
                attackThreads, attacker, victim, watch, heap, blockSize, notifyMillis, json, serverCommand);
    }

    /** Parses the flags after {@code scenario flood}. */
    public static FloodOptions parse(String[] args) {
        FloodOptions o = defaults();
        Duration quiet = o.quiet;
        Duration attack = o.attack;
        int innocents = o.innocents;
        Duration think = o.think;
        Duration retransmit = o.retransmit;
        Duration timeout = o.timeout;
        int unsolicited = o.unsolicitedPorts;
        int request = o.requestPorts;
        int threads = o.attackThreads;
        InetAddress attacker = o.attacker;
        InetAddress victim = o.victim;
        Duration watch = o.watch;
        String heap = o.heap;
        int blockSize = o.blockSize;
        long notify = o.notifyMillis;
        Path json = null;
        String serverCommand = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quiet" -> quiet = Options.seconds(args, ++i, a);
                case "--attack" -> attack = Options.seconds(args, ++i, a);
                case "--innocents" -> innocents = Options.integer(args, ++i, a);
                case "--think" -> think = Duration.ofMillis(Options.integer(args, ++i, a));
                case "--retransmit" -> retransmit = Duration.ofMillis(Options.integer(args, ++i, a));
                case "--timeout" -> timeout = Options.seconds(args, ++i, a);
                case "--unsolicited-ports" -> unsolicited = Options.integer(args, ++i, a);
                case "--request-ports" -> request = Options.integer(args, ++i, a);
                case "--attack-threads" -> threads = Options.integer(args, ++i, a);
                case "--attacker" -> attacker = address(Options.value(args, ++i, a));
                case "--victim" -> victim = address(Options.value(args, ++i, a));
                case "--watch" -> watch = Options.seconds(args, ++i, a);
                case "--heap" -> heap = Options.value(args, ++i, a);
                case "--block-size" -> blockSize = Options.integer(args, ++i, a);
                case "--notify-ms" -> notify = Options.integer(args, ++i, a);
                case "--json" -> json = Path.of(Options.value(args, ++i, a));
                case "--server-cmd" -> serverCommand = Options.value(args, ++i, a);
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        return new FloodOptions(quiet, attack, innocents, think, retransmit, timeout, unsolicited, request, threads,
                attacker, victim, watch, heap, blockSize, notify, json, serverCommand);
    }

    /** A numeric IPv4 or IPv6 literal (no name lookup). */
    static InetAddress address(String literal) {
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            throw new IllegalArgumentException("an address literal is needed, got '" + literal + "'");
        }
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: '" + literal + "'", e);
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }
}
