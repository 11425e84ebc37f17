package io.stagecoach.examples;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./stagecoach demo}: the README's main job. Starts a server endpoint on a free UDP port on
 * loopback, sends it a short tour of requests from a client endpoint, prints each request and
 * response, stops everything and exits 0 (1 if any step did not get the expected answer).
 *
 * <p>It uses the protocol stage directly ({@link CoapEndpoint}); the resource tree and the fluent
 * {@code CoapServer}/{@code CoapClient} API of the resource stage take over this tour when they land.
 */
final class Demo {

    private Demo() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        CoapEndpoint server = CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(loopback, 0)).build())
                .build();
        CoapEndpoint client = CoapEndpoint.builder()
                .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(loopback, 0)).build())
                .build();
        server.setMessageDeliverer(new DemoResources(server));
        int failures = 0;
        try {
            server.start();
            client.start();
            String base = "coap://" + server.address().getAddress().getHostAddress() + ":" + server.address().getPort();
            out.println("server listening on " + base);
            failures += step(out, client, Request.get().uri(base + "/hello").build(), Code.CONTENT);
            failures += step(out, client, Request.post().uri(base + "/echo").payload("ping").build(), Code.CHANGED);
            failures += step(out, client, Request.get().uri(base + "/hello").type(Type.NON).build(), Code.CONTENT);
            failures += step(out, client, Request.get().uri(base + "/nowhere").build(), Code.NOT_FOUND);
            out.println();
            out.println("client " + client.counters());
            out.println("server " + server.counters());
        } finally {
            client.destroy();
            server.destroy();
        }
        out.println(failures == 0 ? "demo done" : "demo: " + failures + " step(s) failed");
        return failures == 0 ? 0 : 1;
    }

    private static int step(PrintStream out, CoapEndpoint client, Request request, Code expected) throws Exception {
        CompletableFuture<Response> answer = new CompletableFuture<>();
        client.sendRequest(request, new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                answer.complete(response);
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                answer.completeExceptionally(cause);
            }
        });
        out.println();
        out.println("> " + request.code() + " " + request.uri(false) + (request.type() == Type.NON ? " (NON)" : "")
                + (request.payloadLength() > 0 ? " \"" + request.payloadString() + "\"" : ""));
        Response response = answer.get(10, TimeUnit.SECONDS);
        out.println("< " + response.type() + " " + response.code() + " token=" + response.token()
                + (response.payloadLength() > 0 ? " \"" + response.payloadString() + "\"" : ""));
        return response.code() == expected ? 0 : 1;
    }

    /** A two-resource upper stage: GET /hello, POST /echo; anything else 4.04. */
    private static final class DemoResources implements LayerStack.Inbox {
        private final CoapEndpoint endpoint;

        DemoResources(CoapEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void deliverRequest(Exchange exchange, Request request) {
            String path = String.join("/", request.options().uriPath());
            Response.Builder r;
            if (path.equals("hello") && request.code() == Code.GET) {
                r = Response.forRequest(request, Code.CONTENT).payload("hello world");
                r.options().contentFormat(ContentFormat.TEXT_PLAIN);
            } else if (path.equals("echo") && request.code() == Code.POST) {
                r = Response.forRequest(request, Code.CHANGED).payload(request.payload());
            } else {
                r = Response.forRequest(request, Code.NOT_FOUND);
            }
            endpoint.respond(exchange, r.build());
        }

        @Override
        public void deliverResponse(Exchange exchange, Response response) {
        }
    }
}
