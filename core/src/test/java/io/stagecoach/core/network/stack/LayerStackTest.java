package io.stagecoach.core.network.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Messages pass the layers in order, skipping those that only forward them. */
class LayerStackTest {

    private final List<String> seen = new ArrayList<>();
    private final Request request = Request.get().type(Type.CON).mid(1).build();
    private final Exchange exchange = new Exchange(Exchange.Origin.REMOTE, request,
            EndpointContext.of(new InetSocketAddress("127.0.0.1", 5683)), 0, null);

    /** Records the requests going up and the responses going down, and forwards them. */
    private final class Recorder extends AbstractLayer {
        private final String name;

        Recorder(String name) {
            this.name = name;
        }

        @Override
        public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
            seen.add(name + " up");
            ctx.receiveRequest(exchange, request);
        }

        @Override
        public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
            seen.add(name + " down");
            ctx.sendResponse(exchange, response);
        }
    }

    /** A layer of its own kind: implements every method itself, so none is skipped. */
    private final class Direct implements Layer {
        @Override
        public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
            ctx.sendRequest(exchange, request);
        }

        @Override
        public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
            seen.add("direct down");
            ctx.sendResponse(exchange, response);
        }

        @Override
        public void sendEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
            ctx.sendEmpty(exchange, message);
        }

        @Override
        public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
            seen.add("direct up");
            ctx.receiveRequest(exchange, request);
        }

        @Override
        public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
            ctx.receiveResponse(exchange, response);
        }

        @Override
        public void receiveEmpty(LayerContext ctx, Exchange exchange, EmptyMessage message) {
            ctx.receiveEmpty(exchange, message);
        }
    }

    private LayerStack stack(LayerStack.Builder b) {
        LayerStack s = b.build(new Services(), new LayerStack.Outbox() {
            @Override
            public void sendRequest(Exchange exchange, Request request) {
                seen.add("network request");
            }

            @Override
            public void sendResponse(Exchange exchange, Response response) {
                seen.add("network response");
            }

            @Override
            public void sendEmpty(Exchange exchange, EmptyMessage message) {
                seen.add("network empty");
            }
        });
        s.setInbox(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                seen.add("resources");
                s.sendResponse(exchange, Response.forRequest(request, Code.CONTENT).build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
                seen.add("client");
            }
        });
        return s;
    }

    @Test
    void messagesReachTheActingLayersInOrderPastForwardingOnes() {
        LayerStack s = stack(LayerStack.builder()
                .addBottom("top", new Recorder("top"))
                .addBottom("plain-1", new AbstractLayer() { })
                .addBottom("direct", new Direct())
                .addBottom("plain-2", new AbstractLayer() { })
                .addBottom("bottom", new Recorder("bottom"))
                .addBottom("plain-3", new AbstractLayer() { }));

        s.receiveRequest(exchange, request);

        assertEquals(List.of("bottom up", "direct up", "top up", "resources",
                "top down", "direct down", "bottom down", "network response"), seen);
    }

    @Test
    void aStackOfForwardingLayersOnlyLinksTheEnds() {
        LayerStack s = stack(LayerStack.builder()
                .addBottom("plain-1", new AbstractLayer() { })
                .addBottom("plain-2", new AbstractLayer() { }));

        s.receiveRequest(exchange, request);
        s.sendRequest(exchange, request);
        s.sendEmpty(exchange, EmptyMessage.of(Type.ACK, 1));
        s.receiveResponse(exchange, Response.forRequest(request, Code.CONTENT).build());

        assertEquals(List.of("resources", "network response", "network request", "network empty", "client"), seen);
    }

    @Test
    void anEmptyStackLinksTheEnds() {
        LayerStack s = stack(LayerStack.builder());

        s.receiveRequest(exchange, request);

        assertEquals(List.of("resources", "network response"), seen);
    }

    private static final class Services implements StackServices {
        @Override
        public Scheduler scheduler() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Configuration config() {
            throw new UnsupportedOperationException();
        }

        @Override
        public RandomGenerator random() {
            throw new UnsupportedOperationException();
        }

        @Override
        public EndpointCounters counters() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void execute(Exchange exchange, Runnable task) {
            task.run();
        }
    }
}
