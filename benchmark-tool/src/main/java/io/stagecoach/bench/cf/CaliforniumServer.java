package io.stagecoach.bench.cf;

import io.stagecoach.bench.beyond.ChangingValue;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import org.eclipse.californium.core.CoapResource;
import org.eclipse.californium.core.CoapServer;
import org.eclipse.californium.core.coap.CoAP.ResponseCode;
import org.eclipse.californium.core.coap.CoAP.Type;
import org.eclipse.californium.core.coap.MediaTypeRegistry;
import org.eclipse.californium.core.config.CoapConfig;
import org.eclipse.californium.core.network.CoapEndpoint;
import org.eclipse.californium.core.server.resources.CoapExchange;
import org.eclipse.californium.elements.config.Configuration;
import org.eclipse.californium.elements.config.TcpConfig;
import org.eclipse.californium.elements.config.UdpConfig;
import org.eclipse.californium.elements.tcp.netty.TcpServerConnector;
import org.eclipse.californium.scandium.DTLSConnector;
import org.eclipse.californium.scandium.config.DtlsConfig;
import org.eclipse.californium.scandium.config.DtlsConnectorConfig;
import org.eclipse.californium.scandium.dtls.pskstore.AdvancedSinglePskStore;

/**
 * The reference server of {@code stagecoach bench compare}: Eclipse Californium 3.13.0 serving
 * {@code GET /benchmark} with 2.05 "hello world" (text/plain), the resource every compared server
 * offers, and {@code GET /fibonacci?n=N} for the isolation scenario. Californium's own defaults apply (mark-and-sweep deduplicator, its thread counts), with
 * {@code --no-dedup} selecting {@code NO_DEDUPLICATOR}. The configuration is built in memory:
 * Californium's {@code Configuration.getStandard()} would write a properties file into the
 * working directory.
 *
 * <p>With {@code --dtls} the endpoint is Scandium 3.13.0's {@code DTLSConnector} with one PSK
 * identity ({@code --psk IDENTITY:SECRET}, default {@code bench:secretPSK}) and Scandium's
 * defaults otherwise: the DTLS reference server of {@code docs/benchmarks/dtls.md}.
 *
 * <p>With {@code --tcp} the endpoint is Californium's coap+tcp connector ({@code TcpServerConnector},
 * element-connector-tcp-netty, its default settings).
 *
 * <p>For the benchmarks beyond GET it serves what {@code bench sc-server} serves: {@code /obs},
 * observable, changed every {@code --observe-period} ms (default 1000) with {@code
 * --observe-type NON} (default) or CON notifications — Californium still sends a CON after
 * NOTIFICATION_CHECK_INTERVAL_COUNT (default 100) NON ones or NOTIFICATION_CHECK_INTERVAL_TIME
 * (24 h) — and {@code /large}, {@code --large-size} bytes (default 1 MiB) served block-wise, in
 * blocks of at most {@code --block-size} (PREFERRED_BLOCK_SIZE, default 512).
 *
 * <p>Usage: {@code stagecoach bench cf-server [--port 5683] [--bind 127.0.0.1] [--no-dedup]
 * [--tcp | --dtls [--psk ID:SECRET]] [--observe-period MS] [--observe-type NON|CON]
 * [--large-size BYTES] [--block-size N]}; runs until the process is terminated.
 */
public final class CaliforniumServer {

    /** The answer of {@code /benchmark}, the same bytes as the echo and Stagecoach servers. */
    public static final String PAYLOAD = "hello world";

    private final CoapServer server;
    private final ChangingValue value = new ChangingValue();
    private CoapResource observed;
    private long observePeriodMs;

    /**
     * @param bind    address to bind; port 0 picks a free port
     * @param noDedup {@code true} for Californium's NO_DEDUPLICATOR
     */
    public CaliforniumServer(InetSocketAddress bind, boolean noDedup) {
        this(bind, noDedup, false, null);
    }

    /**
     * @param tcp {@code true} for Californium's coap+tcp connector instead of UDP
     * @param psk {@code IDENTITY:SECRET} for a Scandium DTLS endpoint, or {@code null} for UDP
     *            (or TCP)
     */
    public CaliforniumServer(InetSocketAddress bind, boolean noDedup, boolean tcp, String psk) {
        this(bind, noDedup, tcp, psk, 0);
    }

    /**
     * @param blockSize PREFERRED_BLOCK_SIZE (and MAX_MESSAGE_SIZE at least that), 0 for Californium's default (512)
     */
    public CaliforniumServer(InetSocketAddress bind, boolean noDedup, boolean tcp, String psk, int blockSize) {
        if (tcp && psk != null) {
            throw new IllegalArgumentException("cf-server: --tcp and --dtls exclude each other");
        }
        CoapConfig.register();
        UdpConfig.register();
        TcpConfig.register();
        DtlsConfig.register();
        Configuration config = Configuration.createStandardWithoutFile();
        if (noDedup) {
            config.set(CoapConfig.DEDUPLICATOR, CoapConfig.NO_DEDUPLICATOR);
        }
        if (blockSize > 0) {
            config.set(CoapConfig.PREFERRED_BLOCK_SIZE, blockSize);
            config.set(CoapConfig.MAX_MESSAGE_SIZE, Math.max(blockSize, config.get(CoapConfig.MAX_MESSAGE_SIZE)));
        }
        server = new CoapServer(config);
        CoapEndpoint.Builder endpoint = new CoapEndpoint.Builder().setConfiguration(config);
        if (tcp) {
            endpoint.setConnector(new TcpServerConnector(bind, config));
        } else if (psk == null) {
            endpoint.setInetSocketAddress(bind);
        } else {
            int colon = psk.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--psk needs IDENTITY:SECRET, got " + psk);
            }
            DtlsConnectorConfig dtls = DtlsConnectorConfig.builder(config).setAddress(bind)
                    .set(DtlsConfig.DTLS_ROLE, DtlsConfig.DtlsRole.SERVER_ONLY)
                    .setAdvancedPskStore(new AdvancedSinglePskStore(psk.substring(0, colon),
                            psk.substring(colon + 1).getBytes(StandardCharsets.UTF_8)))
                    .build();
            endpoint.setConnector(new DTLSConnector(dtls));
        }
        server.addEndpoint(endpoint.build());
        server.add(new CoapResource("benchmark") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, PAYLOAD, MediaTypeRegistry.TEXT_PLAIN);
            }
        });
        server.add(fibonacci());
    }

    /**
     * Adds {@code /obs} (notifications of {@code type}) and {@code /large} ({@code largeSize} bytes);
     * {@link #start()} then changes {@code /obs} every {@code periodMs}.
     */
    public CaliforniumServer withBeyondResources(Type type, long periodMs, int largeSize) {
        CoapResource obs = new CoapResource("obs") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, value.text(), MediaTypeRegistry.TEXT_PLAIN);
            }
        };
        obs.setObservable(true);
        obs.setObserveType(type);
        byte[] large = ChangingValue.largeBody(largeSize);
        server.add(obs, new CoapResource("large") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, large, MediaTypeRegistry.APPLICATION_OCTET_STREAM);
            }
        });
        observed = obs;
        observePeriodMs = periodMs;
        return this;
    }

    /**
     * {@code GET /fibonacci?n=N} (0..45), naive recursion, for {@code bench scenario isolation}:
     * as in the ecoap thesis §5.3.2 it runs where Californium runs any handler, on the shared
     * protocol-stage pool, with no executor of its own.
     */
    private static CoapResource fibonacci() {
        return new CoapResource("fibonacci") {
            @Override
            public void handleGET(CoapExchange exchange) {
                String n = exchange.getQueryParameter("n");
                int value;
                try {
                    value = Integer.parseInt(n == null ? "" : n);
                } catch (NumberFormatException e) {
                    value = -1;
                }
                if (value < 0 || value > 45) {
                    exchange.respond(ResponseCode.BAD_REQUEST, "query n=<0..45> required");
                    return;
                }
                exchange.respond(ResponseCode.CONTENT, Long.toString(fib(value)), MediaTypeRegistry.TEXT_PLAIN);
            }
        };
    }

    /** Exponential on purpose: the resource exists to burn CPU. */
    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public void start() {
        server.start();
        if (observed != null) {
            value.start(observePeriodMs, observed::changed);
        }
    }

    /** The bound address (the real port after binding to port 0). */
    public InetSocketAddress address() {
        return server.getEndpoints().get(0).getAddress();
    }

    /** Stops the endpoint and frees Californium's executors. */
    public void destroy() {
        value.close();
        server.destroy();
    }

    public static void main(String[] args) throws InterruptedException {
        int port = 5683;
        String bind = "0.0.0.0";
        boolean noDedup = false;
        boolean tcp = false;
        String psk = null;
        long observePeriodMs = 1000;
        Type observeType = Type.NON;
        int largeSize = 1 << 20;
        int blockSize = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--bind" -> bind = value(args, ++i, "--bind");
                case "--no-dedup" -> noDedup = true;
                case "--tcp" -> tcp = true;
                case "--dtls" -> psk = psk == null ? "bench:secretPSK" : psk;
                case "--psk" -> psk = value(args, ++i, "--psk");
                case "--observe-period" -> observePeriodMs = Long.parseLong(value(args, ++i, "--observe-period"));
                case "--observe-type" -> observeType = Type.valueOf(value(args, ++i, "--observe-type"));
                case "--large-size" -> largeSize = Integer.parseInt(value(args, ++i, "--large-size"));
                case "--block-size" -> blockSize = Integer.parseInt(value(args, ++i, "--block-size"));
                default -> throw new IllegalArgumentException("cf-server: unknown option " + args[i]
                        + " (use --port N, --bind ADDR, --no-dedup, --tcp, --dtls, --psk ID:SECRET,"
                        + " --observe-period MS, --observe-type NON|CON, --large-size BYTES, --block-size N)");
            }
        }
        CaliforniumServer server = new CaliforniumServer(new InetSocketAddress(bind, port), noDedup, tcp, psk, blockSize)
                .withBeyondResources(observeType, observePeriodMs, largeSize);
        server.start();
        // As './stagecoach server' does before its first request: tenure the start-up objects in
        // one full collection, so that young collections under load do not copy them 15 times
        // (docs/benchmarks/physical-limit.md, "The c=1000 tail, found"); the same for both peers.
        System.gc();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.destroy();
            stopped.countDown();
        }, "cf-server-shutdown"));
        System.err.println("Californium 3.13.0 server on " + (tcp ? "tcp " : psk != null ? "dtls (Scandium) " : "udp ") + server.address() + " (GET /benchmark, /fibonacci?n=N, /obs " + observeType + " every "
                + observePeriodMs + " ms, /large " + largeSize + " B, deduplicator "
                + (noDedup ? "NO_DEDUPLICATOR" : "default") + ")");
        stopped.await();
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }
}
