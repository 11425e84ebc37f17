package io.stagecoach.examples;

import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;

/**
 * The smallest server: {@code GET /helloWorld} answers "Hello World!" (Californium's first
 * example). Run with an optional port: {@code HelloWorldServer 5683}.
 */
public final class HelloWorldServer {

    private HelloWorldServer() {
    }

    public static void main(String[] args) {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 5683;
        CoapServer server = create(port).start();
        System.out.println("listening on port " + server.port() + "; GET coap://localhost:" + server.port()
                + "/helloWorld");
        Runtime.getRuntime().addShutdownHook(new Thread(server::destroy));
    }

    /** The server, not yet started; port 0 picks a free one. */
    public static CoapServer create(int port) {
        return new CoapServer(port).add(new HelloWorldResource());
    }

    /** A resource in the subclass style; {@code CoapResource.named(..).onGet(..)} is the lambda style. */
    static final class HelloWorldResource extends CoapResource {
        HelloWorldResource() {
            super("helloWorld");
            title("Hello-World Resource");
        }

        @Override
        public void handleGET(CoapExchange exchange) {
            exchange.respond("Hello World!");
        }
    }
}
