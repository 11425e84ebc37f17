package io.stagecoach.bench.server;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * A minimal Stagecoach server for {@code stagecoach bench compare}: a {@link CoapServer} on the
 * JDK UDP connector with one resource, {@code GET /benchmark} -> 2.05 "hello world" (text/plain),
 * the resource every compared server offers. It exists so that the protocol-stage choice
 * (CoapConfig.PROTOCOL_THREADS) and the dedup mode can be measured from the command line
 * without the full plugtest server. Stagecoach system properties ({@code -Dstagecoach.coap.*})
 * apply; the options below override them.
 *
 * <p>Usage: {@code stagecoach bench sc-server [--port 5683] [--bind ADDR] [--protocol-threads N]
 * [--dedup STRICT|IDEMPOTENT_RELAXED|OFF]}; runs until the process is terminated.
 */
public final class BenchServer {

    private BenchServer() {
    }

    /** The server with its /benchmark resource, not started; port 0 picks a free port. */
    public static CoapServer create(InetSocketAddress bind, Configuration config) {
        CoapServer server = CoapServer.builder().udp(bind).config(config).build();
        server.add(CoapResource.named("benchmark").onGet(ex -> ex.respond(Code.CONTENT, "hello world")));
        return server;
    }

    public static void main(String[] args) throws InterruptedException {
        int port = 5683;
        String bind = "0.0.0.0";
        Configuration.Builder config = CoapConfig.builder().applySystemProperties();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--bind" -> bind = value(args, ++i, "--bind");
                case "--protocol-threads" -> config.set(CoapConfig.PROTOCOL_THREADS,
                        Integer.parseInt(value(args, ++i, "--protocol-threads")));
                case "--dedup" -> config.set(CoapConfig.DEDUPLICATION_MODE,
                        DeduplicationMode.valueOf(value(args, ++i, "--dedup")));
                default -> throw new IllegalArgumentException("sc-server: unknown option " + args[i]
                        + " (use --port N, --bind ADDR, --protocol-threads N, --dedup MODE)");
            }
        }
        Configuration built = config.build();
        CoapServer server = create(new InetSocketAddress(bind, port), built);
        server.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.destroy();
            stopped.countDown();
        }, "sc-server-shutdown"));
        System.err.println("Stagecoach bench server on udp " + server.addresses() + " (GET /benchmark, protocol threads "
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
