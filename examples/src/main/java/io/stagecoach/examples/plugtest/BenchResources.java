package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resources the benchmarks use besides the plugtest set:
 * {@code /benchmark} (GET "hello world", POST echo; inline on the protocol thread),
 * {@code /count} (POST answers how often the handler ran: duplicates must not count) and
 * {@code /fibonacci?n=N} (CPU-heavy on its own bounded executor: overload answers 5.03 while the
 * other resources keep answering, the isolation scenario of the ecoap thesis §5.3.2), and
 * {@code /node} (GET answers the node ID, so a client behind a load balancer sees which node served
 * it; docs/cluster.md).
 */
final class BenchResources {

    /** Largest n accepted by /fibonacci: fib(40) already takes about a second of naive recursion. */
    static final int MAX_FIBONACCI_N = 45;

    private static final byte[] HELLO = "hello world".getBytes(StandardCharsets.UTF_8);

    private BenchResources() {
    }

    static CoapResource benchmark() {
        return CoapResource.named("benchmark").title("Benchmark resource").advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .onGet(ex -> ex.respond(Code.CONTENT, HELLO, ContentFormat.TEXT_PLAIN))
                .onPost(ex -> ex.respond(Code.CHANGED, ex.payload(), Objects.requireNonNullElse(ex.requestContentFormat(), ContentFormat.TEXT_PLAIN)));
    }

    static CoapResource count() {
        AtomicLong runs = new AtomicLong();
        return CoapResource.named("count").title("Counts POST handler runs")
                .onPost(ex -> ex.respond(Code.CHANGED, Long.toString(runs.incrementAndGet())));
    }

    /** {@code /node}: GET answers {@code nodeId} as text (0: the server has no node ID). */
    static CoapResource node(int nodeId) {
        byte[] text = Integer.toString(nodeId).getBytes(StandardCharsets.US_ASCII);
        return CoapResource.named("node").title("Node ID of this server in a cluster")
                .advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .onGet(ex -> ex.respond(Code.CONTENT, text, ContentFormat.TEXT_PLAIN));
    }

    /** {@code /fibonacci} running on {@code executor} (the caller's; bounded, single thread). */
    static CoapResource fibonacci(Executor executor) {
        return CoapResource.named("fibonacci").title("Naive Fibonacci, CPU-bound").advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .setExecutor(executor).onGet(BenchResources::fibonacci);
    }

    private static void fibonacci(CoapExchange exchange) {
        String n = exchange.query("n");
        int value;
        try {
            value = Integer.parseInt(n == null ? "" : n);
        } catch (NumberFormatException e) {
            exchange.respond(Code.BAD_REQUEST, "query n=<0.." + MAX_FIBONACCI_N + "> required");
            return;
        }
        if (value < 0 || value > MAX_FIBONACCI_N) {
            exchange.respond(Code.BAD_REQUEST, "n must be 0.." + MAX_FIBONACCI_N + ", got " + value);
            return;
        }
        exchange.respond(Long.toString(fib(value)));
    }

    /** Exponential on purpose: the resource exists to burn CPU. */
    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }
}
