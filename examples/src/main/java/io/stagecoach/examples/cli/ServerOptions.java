package io.stagecoach.examples.cli;

import io.stagecoach.examples.faults.FaultKind;
import io.stagecoach.examples.plugtest.Plugtest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code ./stagecoach server}; values not given stay unset ({@code null} or -1) so
 * that a {@code --config} file's settings apply, and flags override the file.
 */
final class ServerOptions {

    static final int DEFAULT_PORT = 5683;

    int port = DEFAULT_PORT;
    InetAddress bind;
    /** {@code --node-id}: 1..255, or 0 for none. */
    int nodeId;
    /** {@code --drain}: how long SIGTERM lets the node drain before it stops; zero stops at once. */
    Duration drain = Duration.ZERO;
    /** {@code --connector}: auto, jdk or netty. */
    String connector = "auto";
    int receivers = -1;
    int senders = -1;
    int protocolThreads = -1;
    Duration notifyPeriod = Plugtest.DEFAULT_NOTIFY_PERIOD;
    int blockSize = Plugtest.DEFAULT_BLOCK_SIZE;
    boolean blockSizeGiven;
    Path config;
    double faultRate;
    long faultSeed = 1;
    Set<FaultKind> faultKinds = EnumSet.allOf(FaultKind.class);
    String obsResetSecret;
    boolean help;
    int dtlsPort = -1;
    /** {@code --psk IDENTITY:SECRET}, in the order given. */
    final Map<String, byte[]> psk = new LinkedHashMap<>();
    int cidLength = -1;
    int dtlsWarmUp;
    int tcpPort = -1;
    int tlsPort = -1;
    int wsPort = -1;
    Path cert;
    Path key;
    Path ca;

    static String usage() {
        return String.join("\n",
                "usage: ./stagecoach server [options]",
                "  the ETSI CoAP plugtest resource set (/test, /separate, /obs, /large, /validate, ...; see",
                "  docs/interop.md) plus /benchmark, /count, /fibonacci",
                "  --port N                UDP port, 0 = any free one (default 5683)",
                "  --bind ADDR             address to bind (default: every interface)",
                "  --node-id N             this node's ID in a cluster, 1..255: GET /node answers it, and it is the",
                "                          first byte of every DTLS connection ID the node issues (dtls.node-id;",
                "                          docs/cluster.md)",
                "  --drain SECONDS         on SIGTERM, drain first: refuse new requests (5.03 with Max-Age), finish",
                "                          those in flight, tell observers 5.03 with Max-Age (RFC 7641 3.2); stop",
                "                          after SECONDS at the latest (default 0: stop at once)",
                "  --connector auto|jdk|netty  auto (default): Netty's epoll connector where its native transport",
                "                          loads (Linux; batched recvmmsg/sendmmsg, udp.netty-channels SO_REUSEPORT",
                "                          channels), else the JDK connector; the faster one by measurement",
                "                          (docs/benchmarks/physical-limit.md). jdk ('udp' is an alias): JDK",
                "                          UDP sockets everywhere; netty ('epoll' is an alias): Netty always",
                "  --receivers N           receiver threads of the connector",
                "  --senders N             sender threads of the connector",
                "  --protocol-threads N    protocol stage threads; 0 runs it on the receive thread",
                "  --notify-ms MS          period of the observable resources' changes (default 5000)",
                "  --block-size BYTES      block size and maximum message size, 16..1024 (default 64)",
                "  --config FILE           properties file with configuration keys (docs/configuration.md)",
                "  --faults RATE           chaos test: inject every fault kind at RATE in [0, 1] (default 0 = off;",
                "                          docs/reliability.md, Faults)",
                "  --fault-seed N          seed of the fault draws (default 1)",
                "  --fault-kinds LIST      which kinds --faults injects, comma-separated (default all: HANDLER_THROWS,",
                "                          LAYER_THROWS,RECEIVER_DIES,EXECUTOR_REJECTS)",
                "  --obs-reset-secret S    enable POST /obs-reset (TD_COAP_OBS_04) with payload S, e.g. sesame",
                "                          (default: disabled, 4.03; whoever knows S can drop every observation)",
                "  --dtls-port N           also serve CoAP over DTLS (coaps, RFC 7252 9.1) on port N, 0 = any free one;",
                "                          needs --psk or --cert and --key",
                "  --psk IDENTITY:SECRET   a PSK client the DTLS server accepts (repeatable); SECRET is UTF-8 text or",
                "                          0x-prefixed hex; IDENTITY must not contain ':'",
                "  --cid-length N          DTLS connection IDs of N bytes (RFC 9146), 0 = none (default 6)",
                "  --dtls-warmup N         before reporting ready, run N PSK handshakes over loopback against a",
                "                          throwaway DTLS server in this process, so that the JIT has compiled the",
                "                          handshake path (docs/dtls.md, Start-up warm-up; default 0 = none)",
                "  --tcp-port N            also serve CoAP over TCP (coap+tcp, RFC 8323) on port N, 0 = any free one",
                "  --tls-port N            also serve CoAP over TLS (coaps+tcp) on port N; needs --cert and --key",
                "  --ws-port N             also serve CoAP over WebSockets (coap+ws, path /.well-known/coap) on port N,",
                "                          and the CoAP explorer, a page for the browser, at http://ADDR:N/",
                "  --cert FILE             PEM certificate chain of the DTLS and TLS server, leaf first",
                "  --key FILE              PEM PKCS#8 private key of --cert",
                "  --ca FILE               PEM certificates to trust for client certificates (then required of",
                "                          certificate clients; DTLS PSK clients are not asked)",
                "Prints 'listening on coap://ADDR:PORT (connector ...)' when ready, then one line",
                "'listening on coaps://ADDR:PORT' (coap+tcp, coaps+tcp, coap+ws) per further transport, and with",
                "--ws-port 'explorer at http://ADDR:PORT/'; SIGINT/SIGTERM stop it (exit 0).",
                "");
    }

    static ServerOptions parse(String[] args) throws UsageException {
        ServerOptions o = new ServerOptions();
        ArgCursor c = new ArgCursor(args);
        while (c.hasNext()) {
            String flag = c.nextFlag();
            switch (flag) {
                case "-h", "--help" -> o.help = true;
                case "--port" -> o.port = c.intValue(0, 65535);
                case "--bind" -> o.bind = address(c.value());
                case "--node-id" -> o.nodeId = c.intValue(1, 255);
                case "--drain" -> {
                    double seconds = c.decimalValue(0);
                    if (seconds > 3600) {
                        throw new UsageException("--drain must be at most 3600 seconds, got " + seconds);
                    }
                    o.drain = Duration.ofMillis(Math.round(seconds * 1000));
                }
                case "--connector" -> {
                    String name = c.value();
                    o.connector = switch (name) {
                        case "epoll" -> "netty";
                        case "udp" -> "jdk";
                        default -> name;
                    };
                    if (!o.connector.equals("auto") && !o.connector.equals("jdk") && !o.connector.equals("netty")) {
                        throw new UsageException("--connector must be auto, jdk or netty, got '" + name + "'");
                    }
                }
                case "--receivers" -> o.receivers = c.intValue(1, 64);
                case "--senders" -> o.senders = c.intValue(1, 64);
                case "--protocol-threads" -> o.protocolThreads = c.intValue(0, 1024);
                case "--notify-ms" -> o.notifyPeriod = Duration.ofMillis(c.intValue(1, Integer.MAX_VALUE));
                case "--block-size" -> {
                    o.blockSize = c.intValue(16, 1024);
                    o.blockSizeGiven = true;
                    if (Integer.bitCount(o.blockSize) != 1) {
                        throw new UsageException("--block-size must be a power of two 16..1024, got " + o.blockSize);
                    }
                }
                case "--config" -> o.config = Path.of(c.value());
                case "--dtls-port" -> o.dtlsPort = c.intValue(0, 65535);
                case "--psk" -> psk(o, c.value());
                case "--cid-length" -> o.cidLength = c.intValue(0, 32);
                case "--dtls-warmup" -> o.dtlsWarmUp = c.intValue(0, 1_000_000);
                case "--tcp-port" -> o.tcpPort = c.intValue(0, 65535);
                case "--tls-port" -> o.tlsPort = c.intValue(0, 65535);
                case "--ws-port" -> o.wsPort = c.intValue(0, 65535);
                case "--cert" -> o.cert = Path.of(c.value());
                case "--key" -> o.key = Path.of(c.value());
                case "--ca" -> o.ca = Path.of(c.value());
                case "--faults" -> o.faultRate = rate(c.value());
                case "--fault-seed" -> o.faultSeed = seed(c.value());
                case "--fault-kinds" -> o.faultKinds = kinds(c.value());
                case "--obs-reset-secret" -> {
                    o.obsResetSecret = c.value();
                    if (o.obsResetSecret.isEmpty()) {
                        throw new UsageException("--obs-reset-secret must not be empty");
                    }
                }
                default -> throw new UsageException("unknown option '" + flag + "'; try './stagecoach server --help'");
            }
        }
        if (o.tlsPort >= 0 && (o.cert == null || o.key == null)) {
            throw new UsageException("--tls-port needs --cert FILE and --key FILE");
        }
        if ((o.cert == null) != (o.key == null)) {
            throw new UsageException("--cert FILE and --key FILE go together");
        }
        if (o.dtlsPort >= 0 && o.psk.isEmpty() && o.cert == null) {
            throw new UsageException("--dtls-port needs --psk IDENTITY:SECRET or --cert FILE --key FILE");
        }
        if (o.dtlsWarmUp > 0 && (o.dtlsPort < 0 || o.psk.isEmpty())) {
            throw new UsageException("--dtls-warmup needs --dtls-port and --psk (it warms the PSK handshake)");
        }
        return o;
    }

    /** {@code IDENTITY:SECRET}: split at the first ':'; the secret as {@code -k} of the client takes it. */
    private static void psk(ServerOptions o, String spec) throws UsageException {
        int colon = spec.indexOf(':');
        if (colon < 1 || colon == spec.length() - 1) {
            throw new UsageException("--psk needs IDENTITY:SECRET, got '" + spec + "'");
        }
        String identity = spec.substring(0, colon);
        if (o.psk.put(identity, ClientOptions.secret("--psk", spec.substring(colon + 1))) != null) {
            throw new UsageException("--psk: identity '" + identity + "' given twice");
        }
    }

    private static double rate(String text) throws UsageException {
        try {
            double r = Double.parseDouble(text);
            if (r >= 0 && r <= 1) {
                return r;
            }
        } catch (NumberFormatException e) {
            // reported below with the same message as an out-of-range value
        }
        throw new UsageException("--faults must be a rate in [0, 1], got '" + text + "'");
    }

    private static Set<FaultKind> kinds(String text) throws UsageException {
        Set<FaultKind> out = EnumSet.noneOf(FaultKind.class);
        for (String k : text.split(",")) {
            try {
                out.add(FaultKind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--fault-kinds: unknown kind '" + k + "'; one of "
                        + Arrays.toString(FaultKind.values()));
            }
        }
        return out;
    }

    private static long seed(String text) throws UsageException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new UsageException("--fault-seed must be an integer, got '" + text + "'");
        }
    }

    private static InetAddress address(String text) throws UsageException {
        String literal = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new UsageException("--bind: unknown address '" + text + "'");
        }
    }
}
