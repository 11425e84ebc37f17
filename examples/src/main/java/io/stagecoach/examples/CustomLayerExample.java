package io.stagecoach.examples;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A custom layer in the protocol stack: {@link ServerStampLayer} adds an experimental option
 * (number {@value #SERVER_STAMP}, elective, RFC 7252 §5.4.6 range 65000..65535) naming the server
 * to every response. It is inserted above the token layer with
 * {@link CoapEndpointBuilder#addLayerBefore}, and the endpoint is handed to the server with
 * {@code CoapServer.builder().endpoint(...)}.
 */
public final class CustomLayerExample {

    /** An experimental-use option number (RFC 7252 §12.2); even, so elective: peers may ignore it. */
    public static final int SERVER_STAMP = 65000;

    private CustomLayerExample() {
    }

    /** Stamps every outgoing response; touches nothing else. */
    static final class ServerStampLayer extends AbstractLayer {
        private final byte[] stamp;

        ServerStampLayer(String name) {
            this.stamp = name.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
            Response.Builder stamped = response.newBuilder();
            stamped.options().add(Option.of(SERVER_STAMP, stamp));
            ctx.sendResponse(exchange, stamped.build());
        }
    }

    /** A server on {@code bind} whose endpoint carries the stamp layer. */
    static CoapServer create(InetSocketAddress bind, String name) {
        return CoapServer.builder().udp(bind)
                .layers(stack -> stack.addAbove(LayerStack.TOKEN, "server-stamp", new ServerStampLayer(name)))
                .build()
                .add(CoapResource.named("hello").onGet(ex -> ex.respond("hi")));
    }

    /** Starts the server on loopback, GETs /hello and prints the stamp; returns it. */
    static String run(PrintStream out) {
        CoapServer server = create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "stagecoach-example");
        server.start();
        try {
            out.println("layers: " + server.endpoints().get(0).layerNames());
            CoapClient client = new CoapClient("coap://127.0.0.1:" + server.port() + "/hello");
            CoapResponse r = client.get();
            String stamp = new String(r.options().get(SERVER_STAMP).get(0).value(), StandardCharsets.UTF_8);
            out.println(r.code() + " " + r.payloadText() + ", stamped by " + stamp);
            return stamp;
        } finally {
            server.destroy();
        }
    }

    public static void main(String[] args) {
        try {
            run(System.out);
        } finally {
            CoapClient.shutdownDefaultEndpoint();
        }
    }
}
