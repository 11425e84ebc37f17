package io.stagecoach.bench.server;

import io.stagecoach.bench.beyond.ChangingValue;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.dtls.DtlsConfig;
import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.dtls.DtlsWarmUp;
import io.stagecoach.elements.dtls.PskStore;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A minimal Stagecoach server for {@code stagecoach bench compare}: a {@link CoapServer} on the
 * JDK UDP connector with one resource, {@code GET /benchmark} -> 2.05 "hello world" (text/plain),
 * the resource every compared server offers. It exists so that the protocol-stage choice
 * (CoapConfig.PROTOCOL_THREADS) and the dedup mode can be measured from the command line
 * without the full plugtest server. Stagecoach system properties ({@code -Dstagecoach.coap.*})
 * apply; the options below override them.
 *
 * <p>With {@code --dtls} the endpoint is a {@link DtlsConnector} (PSK, {@code --psk
 * IDENTITY:SECRET}, default {@code bench:secretPSK}) instead: the server of
 * {@code docs/benchmarks/dtls.md}. Its {@code dtls.*} settings come from system properties
 * ({@code -Dstagecoach.dtls.max-sessions=...}). {@code --dtls-transport netty} puts the DTLS
 * connector on the Netty UDP connector ({@code udp.*} settings: with epoll, {@code recvmmsg} and
 * {@code sendmmsg} batches) instead of the JDK one, to measure what a batched receive saves the
 * server under a ClientHello flood.
 *
 * <p>For the benchmarks beyond GET ({@code bench observe}, {@code bench blockwise}) it also serves
 * {@code /obs}, observable, whose value changes every {@code --observe-period} ms (default 1000;
 * notifications {@code --observe-type NON} by default, or CON), and {@code /large}, a body of
 * {@code --large-size} bytes (default 1 MiB) that goes block-wise (RFC 7959 Block2) in blocks of
 * at most {@code --block-size} bytes (coap.blockwise.preferred-block-size, default 512; a client
 * asking for less gets less, RFC 7959 §2.4).
 *
 * <p>Usage: {@code stagecoach bench sc-server [--port 5683] [--bind ADDR] [--protocol-threads N]
 * [--dedup STRICT|IDEMPOTENT_RELAXED|OFF] [--dtls [--psk ID:SECRET] [--dtls-transport udp|netty]] [--observe-period MS]
 * [--observe-type NON|CON] [--large-size BYTES] [--block-size N]}; runs until the process is terminated.
 */
public final class BenchServer {

    private BenchServer() {
    }

    /** The server with its /benchmark resource, not started; port 0 picks a free port. */
    public static CoapServer create(InetSocketAddress bind, Configuration config) {
        return withResource(CoapServer.builder().udp(bind).config(config).build());
    }

    /** The same over DTLS with one PSK identity; {@code config} supplies the {@code dtls.*} keys. */
    public static CoapServer createDtls(InetSocketAddress bind, Configuration config, String identity, String secret) {
        return createDtls(bind, config, identity, secret, false);
    }

    /**
     * The same, with {@code netty} on the Netty UDP connector ({@code udp.*} of {@code config})
     * below the DTLS connector instead of the JDK one.
     */
    public static CoapServer createDtls(InetSocketAddress bind, Configuration config, String identity, String secret,
            boolean netty) {
        DtlsConnectorConfig.Builder b = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).apply(config)
                .bindAddress(bind).pskStore(PskStore.of(identity, secret));
        if (netty) {
            b.transport(c -> new NettyUdpConnector(UdpConnectorConfig.builder().apply(config).bindAddress(c.bindAddress())
                    .maxDatagramSize(c.maxDatagramSize()).receiveBufferSize(c.receiveBufferSize())
                    .sendBufferSize(c.sendBufferSize()).buildConfig()));
        }
        return withResource(CoapServer.builder().connector(b.build()).config(config).build());
    }

    /**
     * Adds {@code /obs} (observable, notifications of {@code type}, the value of {@code value}) and
     * {@code /large} ({@code largeSize} bytes, octet-stream) to {@code server}; returns {@code /obs},
     * whose {@code changed()} the caller runs when the value changes.
     */
    public static CoapResource addBeyondResources(CoapServer server, ChangingValue value, Type type, int largeSize) {
        CoapResource obs = CoapResource.named("obs").setObservable(true).setObserveType(type)
                .onGet(ex -> ex.respond(Code.CONTENT, value.text()));
        byte[] large = ChangingValue.largeBody(largeSize);
        server.add(obs, CoapResource.named("large").onGet(ex -> ex.respond(Code.CONTENT, large,
                ContentFormat.OCTET_STREAM)));
        return obs;
    }

    private static CoapServer withResource(CoapServer server) {
        server.add(CoapResource.named("benchmark").onGet(ex -> ex.respond(Code.CONTENT, "hello world")));
        return server;
    }

    public static void main(String[] args) throws InterruptedException {
        int port = -1;
        String bind = "0.0.0.0";
        boolean dtls = false;
        boolean nettyBelowDtls = false;
        int warmUp = 0;
        int warmUpClients = DtlsWarmUp.DEFAULT_CLIENTS;
        String psk = "bench:secretPSK";
        long observePeriodMs = 1000;
        Type observeType = Type.NON;
        int largeSize = 1 << 20;
        Configuration.Builder config = Configuration.builder(UdpConfig.DEFINITIONS, TcpConfig.DEFINITIONS,
                CoapConfig.DEFINITIONS, DtlsConfig.DEFINITIONS).applySystemProperties();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--bind" -> bind = value(args, ++i, "--bind");
                case "--protocol-threads" -> config.set(CoapConfig.PROTOCOL_THREADS,
                        Integer.parseInt(value(args, ++i, "--protocol-threads")));
                case "--dedup" -> config.set(CoapConfig.DEDUPLICATION_MODE,
                        DeduplicationMode.valueOf(value(args, ++i, "--dedup")));
                case "--dtls" -> dtls = true;
                case "--psk" -> psk = value(args, ++i, "--psk");
                case "--dtls-warmup" -> warmUp = Integer.parseInt(value(args, ++i, "--dtls-warmup"));
                case "--dtls-warmup-clients" -> warmUpClients = Integer.parseInt(value(args, ++i, "--dtls-warmup-clients"));
                case "--dtls-transport" -> nettyBelowDtls = switch (value(args, ++i, "--dtls-transport")) {
                    case "netty" -> true;
                    case "udp" -> false;
                    default -> throw new IllegalArgumentException("--dtls-transport udp|netty, got " + args[i]);
                };
                case "--observe-period" -> observePeriodMs = Long.parseLong(value(args, ++i, "--observe-period"));
                case "--observe-type" -> observeType = Type.valueOf(value(args, ++i, "--observe-type"));
                case "--large-size" -> largeSize = Integer.parseInt(value(args, ++i, "--large-size"));
                case "--block-size" -> config.set(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE,
                        Integer.parseInt(value(args, ++i, "--block-size")));
                default -> throw new IllegalArgumentException("sc-server: unknown option " + args[i]
                        + " (use --port N, --bind ADDR, --protocol-threads N, --dedup MODE, --dtls, --psk ID:SECRET, --dtls-transport udp|netty,"
                        + " --dtls-warmup HANDSHAKES, --dtls-warmup-clients N,"
                        + " --observe-period MS, --observe-type NON|CON, --large-size BYTES, --block-size 16..1024)");
            }
        }
        Configuration built = config.build();
        int colon = psk.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--psk needs IDENTITY:SECRET, got " + psk);
        }
        InetSocketAddress address = new InetSocketAddress(bind, port >= 0 ? port : dtls ? 5684 : 5683);
        if (dtls && warmUp > 0) {
            DtlsConnectorConfig template = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).apply(built)
                    .bindAddress(address).pskStore(PskStore.of(psk.substring(0, colon), psk.substring(colon + 1)))
                    .buildConfig();
            try {
                DtlsWarmUp.Result r = DtlsWarmUp.of(template, warmUp, warmUpClients, Duration.ofSeconds(60)).run();
                System.err.println("sc-server DTLS warm-up: " + r.completed() + " handshakes (" + r.failed()
                        + " failed) from " + warmUpClients + " clients in " + r.elapsed().toMillis() + " ms");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        CoapServer server = dtls ? createDtls(address, built, psk.substring(0, colon), psk.substring(colon + 1), nettyBelowDtls)
                : create(address, built);
        ChangingValue value = new ChangingValue();
        CoapResource obs = addBeyondResources(server, value, observeType, largeSize);
        server.start();
        value.start(observePeriodMs, obs::changed);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            value.close();
            // what the endpoint counted (retransmissions, amplification_limited, unmatched, ...) goes
            // to the server's log, where a benchmark's result can be explained from
            server.endpoints().forEach(e -> System.err.println("sc-server counters " + e.counters().snapshot()));
            server.destroy();
            stopped.countDown();
        }, "sc-server-shutdown"));
        System.err.println("Stagecoach bench server on " + (dtls ? "dtls " : "udp ") + server.addresses()
                + " (GET /benchmark, /obs " + observeType + " every " + observePeriodMs + " ms, /large "
                + largeSize + " B, protocol threads "
                + built.get(CoapConfig.PROTOCOL_THREADS) + ", dedup " + built.get(CoapConfig.DEDUPLICATION_MODE) + ")");
        stopped.await();
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }
}
