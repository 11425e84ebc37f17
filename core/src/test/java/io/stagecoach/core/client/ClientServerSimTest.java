package io.stagecoach.core.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.core.client.CoapException;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CoapClient against CoapServer over the in-memory network on the virtual clock, protocol stages
 * inline: deterministic, no threads, no sleeps. Each link direction takes 10 ms, so an answered
 * request completes after 20 ms of virtual time.
 */
class ClientServerSimTest {

    private static final Duration ONE_WAY = Duration.ofMillis(10);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final TestResources resources = new TestResources();
    private CoapServer server;
    private CoapEndpoint serverEndpoint;
    private CoapEndpoint clientEndpoint;

    @BeforeEach
    void start() throws Exception {
        net.setDefaultConditions(LinkConditions.builder().delay(ONE_WAY).build());
        serverEndpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(serverEndpoint).build();
        resources.installOn(server);
        server.start();
        clientEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2)).build();
        clientEndpoint.start();
    }

    @AfterEach
    void stop() {
        clock.advance(Duration.ofSeconds(1)); // let trailing ACKs arrive
        assertEquals(0, clientEndpoint.openExchanges(), "client exchanges left");
        assertEquals(0, serverEndpoint.openExchanges(), "server exchanges left");
        server.destroy();
        server.destroy(); // idempotent
        clientEndpoint.destroy();
        assertFalse(server.isRunning());
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private CoapClient client(String path) {
        return new CoapClient("coap://10.0.0.1:5683" + path, clientEndpoint);
    }

    /** Advances virtual time by one round trip and returns the completed result. */
    private <T> T await(CompletableFuture<T> f) {
        clock.advance(ONE_WAY.multipliedBy(2));
        assertTrue(f.isDone(), () -> "no answer after one round trip; client " + clientEndpoint.counters()
                + " server " + serverEndpoint.counters());
        return f.join();
    }

    @Test
    void getAnswers205WithPayloadAndRttOnTheVirtualClock() {
        CoapResponse r = await(client("/hello").getAsync());
        assertEquals(Code.CONTENT, r.code(), "GET /hello");
        assertEquals("world", r.payloadText());
        assertEquals(ContentFormat.TEXT_PLAIN, r.contentFormat(), "text/plain");
        assertTrue(r.isSuccess());
        assertEquals(Type.ACK, r.advanced().type(), "piggybacked on the ACK of the CON request");
        assertEquals(Duration.ofMillis(20), r.rtt(), "10 ms each way on the virtual clock");
    }

    @Test
    void everyMethodGetsItsCode() {
        CoapClient store = client("/store");
        byte[] x = "x".getBytes(StandardCharsets.UTF_8);
        assertEquals(Code.CHANGED, await(store.putAsync("v1", ContentFormat.TEXT_PLAIN)).code(), "PUT /store");
        assertEquals("v1", await(store.getAsync()).payloadText(), "GET after PUT");
        assertEquals(Code.CHANGED, await(store.patchAsync(x, ContentFormat.TEXT_PLAIN)).code(), "PATCH appends");
        assertEquals("v1x", await(store.getAsync()).payloadText());
        assertEquals(Code.CHANGED, await(store.ipatchAsync("v2".getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN)).code());
        CoapResponse fetched = await(store.fetchAsync("q".getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CONTENT, fetched.code(), "FETCH");
        assertEquals("fetched:q", fetched.payloadText());
        assertEquals(Code.DELETED, await(store.deleteAsync()).code(), "DELETE /store");
        assertEquals("", await(store.getAsync()).payloadText());
    }

    @Test
    void postCreates201WithLocationThenTheNewResourceCanBeReadAndDeleted() {
        CoapResponse created = await(client("/items").postAsync("first", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CREATED, created.code(), "POST /items");
        assertEquals(List.of("items", "1"), created.options().locationPath());
        assertEquals("/items/1", created.location());
        CoapClient item = client(created.location());
        assertEquals("first", await(item.getAsync()).payloadText(), "GET " + created.location());
        assertEquals(Code.DELETED, await(item.deleteAsync()).code(), "DELETE " + created.location());
        assertEquals(Code.NOT_FOUND, await(item.getAsync()).code(), "GET after DELETE");
    }

    @Test
    void errorCodes404And405And406() {
        assertEquals(Code.NOT_FOUND, await(client("/nowhere").getAsync()).code(), "GET /nowhere");
        assertEquals(Code.METHOD_NOT_ALLOWED, await(client("/hello").postAsync("x", ContentFormat.TEXT_PLAIN)).code(), "POST /hello");
        assertEquals(Code.NOT_ACCEPTABLE, await(client("/json").getAsync(ContentFormat.TEXT_PLAIN)).code(), "GET /json Accept:0");
        assertEquals(Code.CONTENT, await(client("/json").getAsync(ContentFormat.JSON)).code(), "GET /json Accept:50");
    }

    @Test
    void handlerExceptionIs500AndTheServerStillAnswers() {
        CoapResponse r = await(client("/boom").getAsync());
        assertEquals(Code.INTERNAL_SERVER_ERROR, r.code(), "GET /boom");
        assertEquals("", r.payloadText(), "no exception text unless coap.server.error-diagnostics is on");
        assertEquals(Code.CONTENT, await(client("/hello").getAsync()).code(), "next request after the 5.00");
    }

    @Test
    void fullExecutorIs503WithMaxAge() {
        server.add(CoapResource.named("busy").setExecutor(task -> {
            throw new RejectedExecutionException("queue full");
        }).onGet(ex -> ex.respond("never")));
        CoapResponse r = await(client("/busy").getAsync());
        assertEquals(Code.SERVICE_UNAVAILABLE, r.code(), "GET /busy with a rejecting executor");
        assertTrue(r.options().has(io.stagecoach.core.coap.OptionNumber.MAX_AGE), "5.03 carries Max-Age");
    }

    @Test
    void separateResponseArrivesAfterTheEmptyAck() {
        CompletableFuture<CoapResponse> f = client("/separate").getAsync();
        clock.advance(ONE_WAY.multipliedBy(2));
        assertFalse(f.isDone(), "only the empty ACK came back");
        CoapExchange pending = resources.separate.poll();
        assertNotNull(pending, "the handler accepted the request");
        pending.respond("later");
        CoapResponse r = await(f);
        assertEquals(Code.CONTENT, r.code());
        assertEquals("later", r.payloadText());
        assertEquals(Type.CON, r.advanced().type(), "a separate response to a CON request is CON (RFC 7252 5.2.2)");
        // built as a piggybacked ACK, it must have left with a MID of the server's own: one the
        // client's ACK matches, so it is never sent again
        clock.advance(Duration.ofSeconds(10));
        assertEquals(0, serverEndpoint.counters().get(EndpointCounters.Counter.RETRANSMISSIONS),
                "the client's ACK stopped the separate response");
    }

    @Test
    void nonRequestGetsNonResponse() {
        CoapResponse r = await(client("/hello").useNONs().getAsync());
        assertEquals(Type.NON, r.advanced().type());
        assertEquals("world", r.payloadText());
    }

    @Test
    void unansweredRequestFailsWithTimeoutAfterTheClientTimeoutAndIsCancelled() {
        CompletableFuture<CoapResponse> f = client("/silent").timeout(Duration.ofSeconds(3)).getAsync();
        clock.advance(Duration.ofMillis(2999));
        assertFalse(f.isDone(), "still waiting 1 ms before the timeout");
        assertEquals(1, clientEndpoint.openExchanges());
        clock.advance(Duration.ofMillis(1));
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
        assertInstanceOf(CoapTimeoutException.class, e.getCause(), "timeout, not a silent null");
        assertEquals(0, clientEndpoint.openExchanges(), "the exchange was cancelled on the endpoint");
    }

    @Test
    void handlerVariantReportsLoadAndError() {
        AtomicReference<CoapResponse> loaded = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CoapHandler handler = new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                loaded.set(response);
            }

            @Override
            public void onError(Throwable error) {
                failed.set(error);
            }
        };
        client("/hello").get(handler);
        clock.advance(ONE_WAY.multipliedBy(2));
        assertEquals("world", loaded.get().payloadText());
        client("/silent").timeout(Duration.ofSeconds(1)).get(handler);
        clock.advance(Duration.ofSeconds(1));
        assertInstanceOf(CoapTimeoutException.class, failed.get(), "onError gets the cause itself");
    }

    @Test
    void cancellingTheFutureCancelsTheExchange() {
        CompletableFuture<CoapResponse> f = client("/silent").getAsync();
        assertEquals(1, clientEndpoint.openExchanges());
        f.cancel(true);
        assertEquals(0, clientEndpoint.openExchanges());
    }

    @Test
    void pingIsAnsweredWithRstAndAnAbsentHostTimesOut() {
        CompletableFuture<Boolean> alive = client("/").pingAsync(Duration.ofSeconds(2));
        assertTrue(await(alive), "Empty CON answered by RST");
        CoapClient nobody = new CoapClient("coap://10.0.0.77:5683/", clientEndpoint);
        CompletableFuture<Boolean> absent = nobody.pingAsync(Duration.ofSeconds(2));
        clock.advance(Duration.ofMillis(1999));
        assertFalse(absent.isDone());
        clock.advance(Duration.ofMillis(1));
        assertFalse(absent.join(), "no RST within 2 s: false");
    }

    @Test
    void customOptionTravelsWithAdvanced() {
        AtomicReference<byte[]> seen = new AtomicReference<>();
        server.add(CoapResource.named("opt").onGet(ex -> {
            seen.set(ex.options().get(65000).get(0).value());
            ex.respond(Code.VALID);
        }));
        CoapClient c = client("/opt");
        Request.Builder b = c.newRequest(Code.GET);
        b.options().add(Option.of(65000, new byte[] {7}));
        assertEquals(Code.VALID, await(c.advancedAsync(b.build())).code());
        assertEquals(7, seen.get()[0]);
    }

    @Test
    void executorIsInheritedFromTheNearestAncestor() {
        List<String> ran = new ArrayList<>();
        CoapResource parent = CoapResource.named("p").setExecutor(task -> {
            ran.add("p-executor");
            task.run();
        });
        parent.add(CoapResource.named("child").onGet(ex -> ex.respond("c")));
        server.add(parent);
        assertEquals("c", await(client("/p/child").getAsync()).payloadText());
        assertEquals(List.of("p-executor"), ran, "the child without an executor used its parent's");
        assertEquals(Code.CONTENT, await(client("/hello").getAsync()).code());
        assertEquals(1, ran.size(), "a resource without executor on its path runs inline");
    }

    @Test
    void discoveryFiltersThroughTheClient() {
        CoapClient c = client("/");
        assertEquals(List.of("/link1", "/link3"), targets(c, "rt=Type1"));
        assertEquals(List.of("/link1", "/link2", "/link3"), targets(c, "rt=*"));
        assertEquals(List.of("/link1", "/link2"), targets(c, "if=If*"));
        assertEquals(List.of("/sized"), targets(c, "sz=*"));
        assertEquals(List.of("/link1"), targets(c, "href=/link1"));
        assertEquals(List.of("/link1", "/link2", "/link3"), targets(c, "href=/link*"));
        assertEquals(List.of("/path"), targets(c, "ct=40"));
        assertEquals(List.of("/link3"), targets(c, "rt=Type1&if=foo"), "arguments are ANDed");
        List<WebLink> all = awaitTransfer(c.discoverAsync(null));
        assertTrue(all.stream().anyMatch(l -> l.target().equals("/hello")), "unfiltered lists /hello: " + all);
        assertFalse(all.stream().anyMatch(l -> l.target().startsWith("/.well-known")), "discovery hides itself");
    }

    private List<String> targets(CoapClient c, String query) {
        return awaitTransfer(c.discoverAsync(query)).stream().map(WebLink::target).toList();
    }

    /**
     * Waits for a call that may take several round trips: discovery answers exceed three times
     * a new client's request, so they come in small blocks until its address is verified
     * (RFC 7252 §11.3).
     */
    private <T> T awaitTransfer(CompletableFuture<T> f) {
        for (int rt = 0; rt < 100 && !f.isDone(); rt++) {
            clock.advance(ONE_WAY.multipliedBy(2));
        }
        assertTrue(f.isDone(), "no answer after 100 round trips");
        return f.join();
    }

    @Test
    void discoveryOfAServerWithoutWellKnownCoreIsAClientException() {
        server.remove(server.root().child(".well-known"));
        CompletableFuture<List<WebLink>> f = client("/").discoverAsync(null);
        clock.advance(ONE_WAY.multipliedBy(2));
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
        CoapClientException ce = assertInstanceOf(CoapClientException.class, e.getCause());
        assertEquals(Code.NOT_FOUND, ce.response().code());
    }

    @Test
    void stoppedServerFailsOpenCallsAndStartsAgain() {
        server.stop();
        CompletableFuture<CoapResponse> f = client("/hello").timeout(Duration.ofSeconds(1)).getAsync();
        clock.advance(Duration.ofSeconds(1));
        assertInstanceOf(CoapException.class, org.junit.jupiter.api.Assertions.assertThrows(
                CompletionException.class, f::join).getCause());
        server.start();
        assertEquals("world", await(client("/hello").getAsync()).payloadText(), "answers again after start()");
    }
}
