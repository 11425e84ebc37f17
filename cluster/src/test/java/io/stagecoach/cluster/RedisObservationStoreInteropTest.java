package io.stagecoach.cluster;

import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.RedisConnectionException;
import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.observe.Observation;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisObservationStore} against a real {@code redis-server} started by this class on a
 * free loopback port (and ended after it): the store's own contract, then two CoAP "nodes" on the
 * virtual clock sharing observations through Redis (RFC 7641 §3; docs/cluster.md). Each test
 * uses keys of its own prefix. Waits are for Redis's answers (futures with a bound), never
 * sleeps.
 */
class RedisObservationStoreInteropTest {

    private static final long WAIT_SECONDS = 10; // a local Redis answers in well under a millisecond
    private static final InetSocketAddress DEVICE = new InetSocketAddress("10.0.0.1", 5683);
    private static final InetSocketAddress NODE_A = new InetSocketAddress("10.0.1.1", 40000);
    private static final InetSocketAddress NODE_B = new InetSocketAddress("10.0.1.2", 40000);
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private static RedisServer redis;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String prefix;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void prefix() {
        prefix = "test" + PREFIXES.incrementAndGet() + ":observe";
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        ThreadLeakCheck.assertNoStagecoachThreads(); // the Lettuce threads are named stagecoach-redis-*
    }

    private RedisObservationStore store(String node) {
        RedisObservationStore s = RedisObservationStore.builder(redis.uri(), node).keyPrefix(prefix).build();
        toClose.add(s);
        return s;
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static Observation observation(String tokenHex, String path) {
        Request r = Request.builder(Code.GET).uri("coap://10.0.0.1:5683/" + path).token(Token.fromHex(tokenHex))
                .observe(0).build();
        return new Observation(r, DEVICE);
    }

    private static Set<Token> tokens(List<Observation> list) {
        Set<Token> s = new HashSet<>();
        list.forEach(o -> s.add(o.token()));
        return s;
    }

    /**
     * put, get, remove and restore: each node restores what it stored; a token put again by
     * another node moves to that node; a removed one is gone for every node.
     */
    @Test
    void storesByTokenAndRestoresPerNode() throws Exception {
        RedisObservationStore one = store("node-1");
        RedisObservationStore two = store("node-2");
        Observation a = observation("a1a1a1a1a1a1a1a1", "temp");
        Observation b = observation("b2b2b2b2b2b2b2b2", "humidity");
        await(one.put(a));
        await(two.put(b));
        assertEquals(a, await(two.get(a.token())), "any node reads what another stored");
        assertEquals("temp", await(two.get(a.token())).request().options().uriPathString());
        assertNull(await(one.get(Token.fromHex("0000000000000001"))));
        assertEquals(Set.of(a.token()), tokens(await(one.restore())));
        assertEquals(Set.of(b.token()), tokens(await(two.restore())));
        assertEquals("node-1", await(two.nodeOf(a.token())));

        await(two.put(a)); // node-2 took it over
        assertEquals(Set.of(), tokens(await(one.restore())));
        assertEquals(Set.of(a.token(), b.token()), tokens(await(two.restore())));

        await(one.remove(a.token()));
        assertNull(await(two.get(a.token())));
        assertEquals(Set.of(b.token()), tokens(await(two.restore())));
        await(one.remove(a.token())); // removing twice is harmless
        await(two.remove(b.token()));
        assertEquals(List.of(), await(two.restore()));
    }

    /** Node names become part of keys: only a safe alphabet; a Redis that is not there fails the build. */
    @Test
    void refusesBadSettings() {
        assertThrows(IllegalArgumentException.class, () -> RedisObservationStore.builder(redis.uri(), "a b"));
        assertThrows(IllegalArgumentException.class, () -> RedisObservationStore.builder(redis.uri(), ""));
        assertThrows(RedisConnectionException.class,
                () -> RedisObservationStore.builder("redis://127.0.0.1:1", "n").build().close());
    }

    /**
     * Two nodes share observations through Redis: node A's client observes the device; the
     * device's notifications reach node B, which finds the observation in Redis, acknowledges the
     * CON ones and hands them to its listener; the device's final 4.04 (§3.2) removes it from
     * Redis. Then node A "restarts" (a new endpoint and store for node a): it restores nothing,
     * since the observation ended; one stored again is restored and matched without a lookup.
     */
    @Test
    void nodesShareObservationsThroughRedis() throws Exception {
        VirtualClock clock = new VirtualClock();
        SimulatedNetwork net = new SimulatedNetwork(clock, 3);
        LockstepPeer device = LockstepPeer.attach("device", net, DEVICE, clock).defaultDestination(NODE_A);
        toClose.add(device);
        RedisObservationStore storeA = store("a");
        RedisObservationStore storeB = store("b");
        List<String> heardB = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> firstAtB = new CompletableFuture<>();
        CoapEndpoint nodeA = node(net, clock, NODE_A, storeA, new CopyOnWriteArrayList<>(), null);
        CoapEndpoint nodeB = node(net, clock, NODE_B, storeB, heardB, firstAtB);

        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        List<String> loadsA = new CopyOnWriteArrayList<>();
        client.observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                loadsA.add(response.payloadText());
            }

            @Override
            public void onError(Throwable error) {
                loadsA.add("error " + error);
            }
        });
        device.expect().type(Type.CON).code(Code.GET).observe(0).storeMid("reg").storeToken("t");
        Token token = device.token("t");
        device.ack(device.mid("reg")).response(Code.CONTENT).token(token).observe(1).payload("v1").go();
        device.advance(ofMillis(1));
        assertEquals(List.of("v1"), loadsA);
        // the same connection answers in order: this get follows the relation's put
        assertNotNull(await(storeA.get(token)), "stored once the device accepted it");
        assertEquals("a", await(storeB.nodeOf(token)));
        client.close(); // node A's application goes; the observation stays in Redis

        device.non().response(Code.CONTENT).mid(100).token(token).observe(2).payload("v2").to(NODE_B).go();
        device.advance(ofMillis(1));
        firstAtB.get(WAIT_SECONDS, TimeUnit.SECONDS); // B looked it up in Redis and adopted it
        device.con().response(Code.CONTENT).mid(101).token(token).observe(3).payload("v3").to(NODE_B).go();
        device.advance(ofMillis(1));
        device.expect().type(Type.ACK).mid(101).from(NODE_B).emptyAck();
        assertEquals(List.of("obs:v2@2", "obs:v3@3"), heardB);
        assertEquals(1, nodeB.counters().get("observe.store_lookups"), "the second matched B's exchange");

        device.non().response(Code.NOT_FOUND).mid(102).token(token).to(NODE_B).go();
        device.advance(ofMillis(1));
        assertEquals("obs:@-1", heardB.get(2));
        assertNull(await(storeB.get(token)), "the device ended it: gone from Redis");
        assertEquals(0, nodeB.openExchanges());

        // a restart of node a: a new endpoint and store; one observation of node a waits in Redis
        nodeA.destroy();
        Observation waiting = observation("c3c3c3c3c3c3c3c3", "obs");
        await(storeA.put(waiting));
        RedisObservationStore restartedStore = store("a");
        List<String> heardA = new CopyOnWriteArrayList<>();
        CoapEndpoint restarted = node(net, clock, NODE_A, restartedStore, heardA, null);
        // the same connection answers in order: the restore (issued by start) is done, and so is
        // its adoption, which Lettuce runs on completion before it completes this get
        assertNotNull(await(restartedStore.get(waiting.token())));
        assertEquals(1, restarted.counters().get("observe.adopted"));
        device.non().response(Code.CONTENT).mid(103).token(waiting.token()).observe(9).payload("back").to(NODE_A)
                .go();
        device.advance(ofMillis(1));
        assertEquals(List.of("obs:back@9"), heardA);
        assertEquals(0, restarted.counters().get("observe.store_lookups"), "matched without a lookup");
        device.expectNothing();
        restarted.destroy(); // a stop leaves it in Redis for the next start
        assertNotNull(await(storeB.get(waiting.token())));
        nodeB.destroy();
    }

    private CoapEndpoint node(SimulatedNetwork net, VirtualClock clock, InetSocketAddress address,
            RedisObservationStore store, List<String> heard, CompletableFuture<Void> first) throws Exception {
        CoapEndpoint e = CoapEndpoint.builder().connector(net.connector(address)).scheduler(clock)
                .config(CoapConfig.builder().build()).executor(Runnable::run).random(new SplittableRandom(7))
                .observationStore(store).build();
        e.addNotificationListener((observation, response) -> {
            heard.add(observation.request().options().uriPathString() + ":" + response.payloadString() + "@"
                    + response.options().observe());
            if (first != null) {
                first.complete(null);
            }
        });
        e.start();
        toClose.add(e::destroy);
        return e;
    }
}
