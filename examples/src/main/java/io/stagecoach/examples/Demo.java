package io.stagecoach.examples;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.core.server.BoundedExecutors;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * {@code ./stagecoach demo}: the README's main job. Starts {@link DemoServer} on a free UDP port on
 * loopback, runs a scripted tour with {@link CoapClient} — GET, POST creating a resource (2.01 +
 * Location-Path), PUT, DELETE, filtered discovery, a separate response, a ping — printing each
 * request and response, then stops everything. Exit status 0 when every step got the expected
 * code, 1 otherwise. Logs go to stderr, so stdout is the tour alone.
 */
final class Demo {

    private final PrintStream out;
    private final String base;

    private Demo(PrintStream out, String base) {
        this.out = out;
        this.base = base;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        DemoServer demo = new DemoServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try {
            demo.server.start();
            String base = "coap://127.0.0.1:" + demo.server.port();
            out.println("server listening on " + base + " (resources: /hello, /items, /sensors/*, /slow)");
            new Demo(out, base).tour();
            return 0;
        } catch (TourFailed e) {
            err.println("demo: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("demo: failed: " + e);
            return 1;
        } finally {
            CoapClient.shutdownDefaultEndpoint();
            demo.destroy();
        }
    }

    private void tour() {
        step("GET", "/hello", Code.CONTENT, c -> c.get());
        CoapResponse created = step("POST", "/items \"milk\"", Code.CREATED, c -> c.post("milk", ContentFormat.TEXT_PLAIN), "/items");
        String item = created.location();
        step("PUT", item + " \"oat milk\"", Code.CHANGED, c -> c.put("oat milk", ContentFormat.TEXT_PLAIN), item);
        step("GET", item, Code.CONTENT, c -> c.get(), item);
        step("DELETE", item, Code.DELETED, c -> c.delete(), item);
        step("GET", item, Code.NOT_FOUND, c -> c.get(), item);

        out.println();
        out.println("> GET /.well-known/core?rt=temperature   (discovery, filtered by resource type)");
        List<WebLink> links = new CoapClient(base + "/").discover("rt=temperature");
        out.println("< " + links);
        check(links.size() == 1 && links.get(0).target().equals("/sensors/temp"), "discovery found " + links);

        CoapResponse separate = step("GET", "/slow   (the handler ACKs now, answers later from its worker)",
                Code.CONTENT, c -> c.get(), "/slow");
        check(separate.advanced().type() == Type.CON,
                "the separate response came as " + separate.advanced().type());

        out.println();
        out.println("> ping (Empty CON)");
        boolean alive = new CoapClient(base + "/").ping();
        out.println("< " + (alive ? "RST: the server is alive" : "no answer"));
        check(alive, "ping got no RST");

        out.println();
        out.println("demo done: every step got the expected code");
        out.println("to browse a server in a web browser: ./stagecoach server --ws-port 8080, then open the"
                + " 'explorer at' URL it prints (docs/explorer.md)");
    }

    private CoapResponse step(String method, String what, Code expected, ClientCall call) {
        return step(method, what, expected, call, what);
    }

    private CoapResponse step(String method, String what, Code expected, ClientCall call, String path) {
        CoapClient client = new CoapClient(base + path);
        out.println();
        out.println("> CON " + method + " " + what);
        CoapResponse r = call.on(client);
        StringBuilder line = new StringBuilder("< ").append(r.advanced().type()).append(' ')
                .append(r.code().toDigits()).append(' ').append(r.code().name());
        if (!r.location().isEmpty()) {
            line.append("  Location-Path: ").append(r.location());
        }
        if (r.payload().length > 0) {
            line.append("  \"").append(r.payloadText()).append('"');
        }
        out.println(line);
        check(r.code().equals(expected), method + " " + path + " answered " + r.code() + ", expected " + expected);
        return r;
    }

    private void check(boolean ok, String message) {
        if (!ok) {
            throw new TourFailed(message);
        }
    }

    private interface ClientCall {
        CoapResponse on(CoapClient client);
    }

    private static final class TourFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TourFailed(String message) {
            super(message);
        }
    }

    /** The demo's resources. */
    static final class DemoServer {
        final CoapServer server;
        private final ExecutorService worker = BoundedExecutors.singleThread("demo-worker", 16);
        private int nextItem;

        DemoServer(InetSocketAddress bind) {
            CoapResource items = CoapResource.named("items").title("Shopping list");
            items.onPost(ex -> {
                String id = Integer.toString(newId());
                String[] value = {ex.payloadText()};
                items.add(CoapResource.named(id)
                        .onGet(g -> g.respond(value[0]))
                        .onPut(p -> {
                            value[0] = p.payloadText();
                            p.respond(Code.CHANGED);
                        })
                        .onDelete(d -> {
                            items.removeChild(d.resource());
                            d.respond(Code.DELETED);
                        }));
                ex.respond(Code.CREATED, r -> r.locationPath("items", id));
            });
            Supplier<String> reading = () -> "21.5";
            server = CoapServer.builder().udp(bind).build().add(
                    CoapResource.named("hello").title("Greeting").onGet(ex -> ex.respond("Hello, CoAP!")),
                    items,
                    CoapResource.named("sensors").add(
                            CoapResource.named("temp").resourceType("temperature").onGet(ex -> ex.respond(reading.get())),
                            CoapResource.named("humidity").resourceType("humidity").onGet(ex -> ex.respond("40"))),
                    CoapResource.named("slow").title("Separate response").onGet(ex -> {
                        ex.accept(); // empty ACK now (RFC 7252 5.2.2)...
                        worker.execute(() -> ex.respond("computed later")); // ...the response from another thread
                    }));
        }

        private synchronized int newId() {
            return ++nextItem;
        }

        void destroy() {
            server.destroy();
            worker.shutdownNow();
        }
    }
}
