package io.stagecoach.examples;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * An option-transforming layer in the shape of OSCORE (RFC 8613), written with the published API
 * only and put in a server's and a client's stack with their ordinary builders.
 *
 * <p>{@link SealLayer} claims a critical option of its own, {@value #SEALED} (RFC 7252 §12.2
 * experimental range; odd, so critical): the client's layer seals every request's payload and
 * marks it with the option, the server's layer opens it before the resource sees the request and
 * seals the response on the way back. Because the layer names the option in {@code options()},
 * the server's endpoint recognizes it; a server without the layer answers 4.02 Bad Option
 * (RFC 7252 §5.4.1) instead of serving a request it cannot read.
 *
 * <p>The "seal" is a toy: bytes XORed with a shared key. It shows where a real transformation
 * goes; it protects nothing.
 */
public final class SealingLayerExample {

    /** The sealing option: experimental use, critical (odd). */
    public static final int SEALED = 65001;

    /** Where the layer sits in both stacks: below block-wise (it sees whole messages per block) and above the token layer. */
    public static final String LAYER_NAME = "seal";

    private SealingLayerExample() {
    }

    /**
     * Seals requests and opens responses on the client side, opens requests and seals responses on
     * the server side. One instance per endpoint; counts what it opened in the endpoint counter
     * {@code seal.opened}.
     */
    public static final class SealLayer extends AbstractLayer {
        /** Marks a server exchange whose request came sealed, so its response goes sealed too. */
        private static final Exchange.Slot<Boolean> SEALED_EXCHANGE = new Exchange.Slot<>("sealed", Boolean.class);
        private static final Option MARK = Option.of(SEALED, new byte[0]);

        private final byte[] key;
        private LongAdder opened = new LongAdder();

        public SealLayer(byte[] key) {
            if (key.length == 0) {
                throw new IllegalArgumentException("the key must not be empty");
            }
            this.key = key.clone();
        }

        @Override
        public Set<OptionNumber> options() {
            return Set.of(OptionNumber.valueOf(SEALED));
        }

        @Override
        public void start(LayerContext ctx) {
            opened = ctx.services().counters().counter("seal.opened");
        }

        @Override
        public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
            ctx.sendRequest(exchange, request.newBuilder().payload(xor(request.payload()))
                    .options(o -> o.add(MARK)).build());
        }

        @Override
        public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
            if (isSealed(response)) {
                opened.increment();
                response = response.newBuilder().payload(xor(response.payload())).options(o -> o.remove(SEALED)).build();
            }
            ctx.receiveResponse(exchange, response);
        }

        @Override
        public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
            if (!isSealed(request)) {
                ctx.receiveRequest(exchange, request);
                return;
            }
            opened.increment();
            Request inner = request.newBuilder().payload(xor(request.payload())).options(o -> o.remove(SEALED)).build();
            exchange.set(SEALED_EXCHANGE, Boolean.TRUE);
            exchange.setRequest(inner); // what the resource reads; the sealed message stays the one on the wire
            ctx.receiveRequest(exchange, inner);
        }

        @Override
        public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
            if (exchange.get(SEALED_EXCHANGE) != null) {
                response = response.newBuilder().payload(xor(response.payload())).options(o -> o.add(MARK)).build();
            }
            ctx.sendResponse(exchange, response);
        }

        private byte[] xor(byte[] in) {
            byte[] out = new byte[in.length];
            for (int i = 0; i < in.length; i++) {
                out[i] = (byte) (in[i] ^ key[i % key.length]);
            }
            return out;
        }

        private static boolean isSealed(Message m) {
            return m.options().has(SEALED);
        }
    }

    /** A server on {@code bind} with an {@code /echo} resource and the seal layer in its stack. */
    static CoapServer server(InetSocketAddress bind, byte[] key) {
        return CoapServer.builder().udp(bind)
                .layers(stack -> stack.addBelow(LayerStack.BLOCKWISE, LAYER_NAME, new SealLayer(key)))
                .build()
                .add(CoapResource.named("echo").onPost(ex -> ex.respond(Code.CHANGED, ex.payload(), ContentFormat.TEXT_PLAIN)));
    }

    /** A client of {@code uri} with the seal layer in the stack of its own endpoint; close it. */
    static CoapClient client(String uri, byte[] key) {
        return CoapClient.builder(uri)
                .layers(stack -> stack.addBelow(LayerStack.BLOCKWISE, LAYER_NAME, new SealLayer(key)))
                .build();
    }

    /** Starts a server on loopback, POSTs "hello" through the sealing client, prints and returns the answer. */
    static String run(PrintStream out) {
        byte[] key = {0x5a, 0x13, 0x77};
        CoapServer server = server(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), key).start();
        try (CoapClient client = client("coap://127.0.0.1:" + server.port() + "/echo", key)) {
            out.println("server layers: " + server.endpoints().get(0).layerNames());
            CoapResponse r = client.post("hello", ContentFormat.TEXT_PLAIN);
            out.println(r.code() + " \"" + r.payloadText() + "\" (sealed on the wire both ways)");
            return r.payloadText();
        } finally {
            server.destroy();
        }
    }

    public static void main(String[] args) {
        run(System.out);
    }
}
