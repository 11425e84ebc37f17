package io.stagecoach.core.server;

import static io.stagecoach.core.server.Requests.PEER;
import static io.stagecoach.core.server.Requests.TOKEN;
import static io.stagecoach.core.server.Requests.exchange;
import static io.stagecoach.core.server.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServerMessageDelivererTest {

    private final ResourceTree tree = new ResourceTree();
    private final FakeResponder responder = new FakeResponder();
    private final ServerMessageDeliverer deliverer = new ServerMessageDeliverer(tree, responder, 2, List.of(), null, true);
    private final List<ExecutorService> executors = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void shutDown() throws InterruptedException {
        release.countDown();
        for (ExecutorService e : executors) {
            e.shutdownNow();
            assertTrue(e.awaitTermination(5, TimeUnit.SECONDS), "executor did not stop: " + e);
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private ThreadPoolExecutor executor(String name, int capacity) {
        ThreadPoolExecutor e = BoundedExecutors.singleThread(name, capacity);
        executors.add(e);
        return e;
    }

    private Exchange deliver(Exchange ex) {
        deliverer.deliverRequest(ex, ex.request());
        return ex;
    }

    @Test
    void getOnLambdaResourceAnswers205WithTextTokenAndPeerOnTheCallingThread() {
        tree.add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));

        Exchange ex = deliver(exchange(Code.GET, "/hello"));

        FakeResponder.Call call = responder.next();
        Response r = call.response();
        assertEquals(Code.CONTENT, r.code(), "GET /hello");
        assertEquals("world", r.payloadString());
        assertEquals(0, r.options().contentFormat(), "text/plain");
        assertEquals(TOKEN, r.token(), "token echoed (RFC 7252 §5.3.2)");
        assertEquals(PEER, r.peer().peer());
        assertTrue(call.exchange() == ex);
        assertEquals(Thread.currentThread().getName(), call.thread(), "no executor: handler ran inline");
        assertEquals(1, deliverer.counters().delivered());
    }

    @Test
    void unknownPathIs404AndCounted() {
        tree.add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));

        deliver(exchange(Code.GET, "/hello/nothing"));
        deliver(exchange(Code.GET, "/nothing"));

        assertEquals(Code.NOT_FOUND, responder.nextResponse().code(), "GET /hello/nothing");
        Response second = responder.nextResponse();
        assertEquals(Code.NOT_FOUND, second.code(), "GET /nothing");
        assertEquals(TOKEN, second.token());
        assertEquals(2, deliverer.counters().notFound());
    }

    @Test
    void methodWithoutHandlerIs405() {
        tree.add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));

        for (Code m : List.of(Code.POST, Code.PUT, Code.DELETE, Code.FETCH, Code.PATCH, Code.IPATCH, Code.of(0, 9))) {
            deliver(exchange(m, "/hello"));
            assertEquals(Code.METHOD_NOT_ALLOWED, responder.nextResponse().code(), m + " /hello");
        }
        deliver(exchange(Code.GET, ""));
        assertEquals(Code.METHOD_NOT_ALLOWED, responder.nextResponse().code(), "GET / (the root)");
    }

    @Test
    void acceptNotAmongDeclaredFormatsIs406BeforeTheHandler() {
        AtomicBoolean ran = new AtomicBoolean();
        tree.add(CoapResource.named("multi").contentFormats(ContentFormat.TEXT_PLAIN, ContentFormat.JSON).onGet(ex -> {
            ran.set(true);
            ex.respond("ok");
        }));

        var b = request(Code.GET, "/multi");
        b.options().accept(41);
        deliver(exchange(b.build()));
        assertEquals(Code.NOT_ACCEPTABLE, responder.nextResponse().code(), "GET /multi Accept 41");
        assertFalse(ran.get(), "handler must not run on 4.06");
        assertEquals(1, deliverer.counters().notAcceptable());

        b.options().accept(50);
        deliver(exchange(b.build()));
        assertEquals(Code.CONTENT, responder.nextResponse().code(), "GET /multi Accept 50");
        deliver(exchange(Code.GET, "/multi"));
        assertEquals(Code.CONTENT, responder.nextResponse().code(), "GET /multi without Accept");
    }

    @Test
    void fullBoundedExecutorAnswers503WithMaxAgeAndCountsIt() throws InterruptedException {
        ServerMessageDeliverer d = new ServerMessageDeliverer(tree, responder, 7, List.of(), null, true);
        CountDownLatch started = new CountDownLatch(1);
        tree.add(CoapResource.named("slow").setExecutor(executor("slow", 1)).onGet(ex -> {
            started.countDown();
            await(release);
            ex.respond("done");
        }));

        Exchange first = exchange(Code.GET, "/slow");
        d.deliverRequest(first, first.request()); // occupies the single thread
        assertTrue(started.await(5, TimeUnit.SECONDS), "first handler started");
        Exchange second = exchange(Code.GET, "/slow");
        d.deliverRequest(second, second.request()); // fills the queue of 1
        Exchange third = exchange(Code.GET, "/slow");
        d.deliverRequest(third, third.request()); // rejected

        FakeResponder.Call call = responder.next();
        assertTrue(call.exchange() == third, "the third request is answered first, at once");
        assertEquals(Code.SERVICE_UNAVAILABLE, call.response().code());
        assertEquals(7, call.response().options().maxAge(), "configured Max-Age");
        assertEquals(TOKEN, call.response().token());
        assertEquals(1, d.counters().rejectedOverload());

        release.countDown();
        assertEquals(Code.CONTENT, responder.nextResponse().code(), "first, after release");
        assertEquals(Code.CONTENT, responder.nextResponse().code(), "second, from the queue");
    }

    @Test
    void defaultOverloadMaxAgeIsTwoSecondsWithASynchronousHandoffExecutor() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        tree.add(CoapResource.named("slow").setExecutor(executor("handoff", 0)).onGet(ex -> {
            started.countDown();
            await(release);
            ex.respond("done");
        }));
        deliver(exchange(Code.GET, "/slow"));
        assertTrue(started.await(5, TimeUnit.SECONDS));
        deliver(exchange(Code.GET, "/slow"));

        Response r = responder.nextResponse();
        assertEquals(Code.SERVICE_UNAVAILABLE, r.code(), "capacity 0 and busy thread");
        assertEquals(2, r.options().maxAge());
    }

    @Test
    void throwingHandlerGives500WithShortDiagnosticAndServerKeepsServing() {
        tree.add(CoapResource.named("bad").onGet(ex -> {
            throw new IllegalStateException("boom " + "x".repeat(200));
        }), CoapResource.named("good").onGet(ex -> ex.respond("fine")));

        deliver(exchange(Code.GET, "/bad"));
        Response r = responder.nextResponse();
        assertEquals(Code.INTERNAL_SERVER_ERROR, r.code(), "GET /bad");
        assertTrue(r.payloadString().startsWith("IllegalStateException: boom"), r.payloadString());
        assertEquals(ServerMessageDeliverer.MAX_DIAGNOSTIC_BYTES, r.payloadLength(), "truncated");
        assertEquals(TOKEN, r.token());
        assertEquals(1, deliverer.counters().handlerErrors());

        deliver(exchange(Code.GET, "/good"));
        Response next = responder.nextResponse();
        assertEquals(Code.CONTENT, next.code(), "next request still served");
        assertEquals("fine", next.payloadString());
    }

    @Test
    void handlerThatAnsweredAndThenThrewSendsNothingMore() {
        tree.add(CoapResource.named("half").onGet(ex -> {
            ex.respond("partial");
            throw new RuntimeException("after the answer");
        }));

        deliver(exchange(Code.GET, "/half"));

        assertEquals(Code.CONTENT, responder.nextResponse().code());
        assertEquals(0, responder.pending(), "no 5.00 after the handler's own answer");
        assertEquals(1, deliverer.counters().handlerErrors());
    }

    @Test
    void throwingHandlerOnAnExecutorIsAnswered500FromThatThread() {
        tree.add(CoapResource.named("bad").setExecutor(executor("bad", 4)).onGet(ex -> {
            throw new UnsupportedOperationException();
        }));

        deliver(exchange(Code.GET, "/bad"));

        FakeResponder.Call call = responder.next();
        assertEquals(Code.INTERNAL_SERVER_ERROR, call.response().code());
        assertEquals("UnsupportedOperationException", call.response().payloadString());
        assertTrue(call.thread().startsWith("stagecoach-resource-bad-"), call.thread());
    }

    @Test
    void childrenInheritTheNearestExecutorAndWithoutOneRunInline() {
        CoapResource parent = CoapResource.named("parent").setExecutor(executor("parent", 4));
        CoapResource child = CoapResource.named("child").onGet(ex -> ex.respond(Thread.currentThread().getName()));
        CoapResource own = CoapResource.named("own").setExecutor(executor("own", 4))
                .onGet(ex -> ex.respond(Thread.currentThread().getName()));
        child.add(own);
        parent.add(child);
        tree.add(parent, CoapResource.named("inline").onGet(ex -> ex.respond(Thread.currentThread().getName())));

        deliver(exchange(Code.GET, "/inline"));
        assertEquals(Thread.currentThread().getName(), responder.nextResponse().payloadString(), "/inline");

        deliver(exchange(Code.GET, "/parent/child"));
        String childThread = responder.nextResponse().payloadString();
        assertTrue(childThread.startsWith("stagecoach-resource-parent-"), "/parent/child ran on " + childThread);

        deliver(exchange(Code.GET, "/parent/child/own"));
        String ownThread = responder.nextResponse().payloadString();
        assertTrue(ownThread.startsWith("stagecoach-resource-own-"), "/parent/child/own ran on " + ownThread);

        parent.setExecutor(null);
        deliver(exchange(Code.GET, "/parent/child"));
        assertEquals(Thread.currentThread().getName(), responder.nextResponse().payloadString(),
                "no executor up the chain any more: inline");
    }

    @Test
    void resourceAddedAndRemovedWhileRunningIsFoundAndThenNot() {
        CoapResource sensors = CoapResource.named("sensors");
        tree.add(sensors);
        deliver(exchange(Code.GET, "/sensors/temp"));
        assertEquals(Code.NOT_FOUND, responder.nextResponse().code(), "before add");

        CoapResource temp = CoapResource.named("temp").onGet(ex -> ex.respond("21.5"));
        sensors.add(temp);
        deliver(exchange(Code.GET, "/sensors/temp"));
        assertEquals("21.5", responder.nextResponse().payloadString(), "after add");

        assertTrue(temp.delete());
        deliver(exchange(Code.GET, "/sensors/temp"));
        assertEquals(Code.NOT_FOUND, responder.nextResponse().code(), "after delete (cache invalidated)");
    }

    @Test
    void responsesReachingTheServerStageAreIgnored() {
        Exchange ex = exchange(Code.GET, "/x");
        deliverer.deliverResponse(ex, Response.builder(Code.CONTENT).build());
        assertEquals(0, responder.pending());
    }

    @Test
    void diagnosticIsCutOnAUtf8Boundary() {
        byte[] d = ServerMessageDeliverer.diagnostic(new RuntimeException("ü".repeat(100)));
        assertTrue(d.length <= ServerMessageDeliverer.MAX_DIAGNOSTIC_BYTES);
        String text = new String(d, StandardCharsets.UTF_8);
        assertFalse(text.contains("\uFFFD"), "no broken sequence: " + text);
        assertTrue(text.startsWith("RuntimeException: üü"), text);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
