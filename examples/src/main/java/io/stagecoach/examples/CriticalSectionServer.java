package io.stagecoach.examples;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.server.BoundedExecutors;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import java.util.concurrent.ExecutorService;

/**
 * A resource with its own single-threaded executor (Lanter, thesis §8.3): its handlers, and those
 * of children without an executor of their own, run one at a time on that thread, so the
 * handler's read-modify-write of {@code count} needs no lock, while other resources keep running on
 * the protocol threads in parallel. The queue is bounded: when 100 requests wait, the next is
 * answered 5.03 Service Unavailable with Max-Age instead of piling up.
 *
 * <pre>
 *   /counter        POST increments, GET reads     (runs on stagecoach-resource-counter-1)
 *   /counter/reset  POST sets 0                    (inherits the executor)
 * </pre>
 */
public final class CriticalSectionServer {

    private final ExecutorService single = BoundedExecutors.singleThread("counter", 100);
    private final CoapServer server;
    private int count; // guarded by running only on `single`

    public CriticalSectionServer(int port) {
        CoapResource counter = new CoapResource("counter") {
            @Override
            public void handlePOST(CoapExchange exchange) {
                int seen = count; // a read-modify-write: safe because one thread runs it
                count = seen + 1;
                exchange.respond(Code.CHANGED, Integer.toString(count));
            }

            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(Integer.toString(count) + " on " + Thread.currentThread().getName());
            }
        };
        counter.setExecutor(single);
        counter.add(CoapResource.named("reset").onPost(ex -> {
            count = 0;
            ex.respond(Code.CHANGED);
        }));
        server = new CoapServer(port).add(counter);
    }

    public CoapServer server() {
        return server;
    }

    public CriticalSectionServer start() {
        server.start();
        return this;
    }

    /** Destroys the server, then the executor it does not own. */
    public void destroy() {
        server.destroy();
        single.shutdownNow();
    }

    public static void main(String[] args) {
        CriticalSectionServer s = new CriticalSectionServer(args.length > 0 ? Integer.parseInt(args[0]) : 5683).start();
        System.out.println("POST coap://localhost:" + s.server().port() + "/counter");
        Runtime.getRuntime().addShutdownHook(new Thread(s::destroy));
    }
}
