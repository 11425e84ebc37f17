package io.stagecoach.core.observe;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Client-side observations shared through an {@link ObservationStore} (RFC 7641 §3; docs/cluster.md):
 * two "nodes" (endpoints at different addresses, as behind a load balancer) share one store; a
 * scripted device observed by node A sends its notifications to node B, to a node whose client
 * has gone, or to a node restarted since. Everything runs on the virtual clock; each test ends with
 * no exchange open on either node.
 */
class ObservationStoreTest {

    private static final InetSocketAddress DEVICE = new InetSocketAddress("10.0.0.1", 5683);
    private static final InetSocketAddress DEVICE_REBOUND = new InetSocketAddress("10.0.0.1", 61000);
    private static final InetSocketAddress NODE_A = new InetSocketAddress("10.0.1.1", 40000);
    private static final InetSocketAddress NODE_B = new InetSocketAddress("10.0.1.2", 40000);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final Map<Token, MapObservationStore.Entry> shared = MapObservationStore.newSharedMap();
    private final MapObservationStore storeA = new MapObservationStore(shared, "a");
    private final MapObservationStore storeB = new MapObservationStore(shared, "b");
    private final List<String> loadsA = new ArrayList<>();
    private final List<String> heardA = new ArrayList<>();
    private final List<String> heardB = new ArrayList<>();
    private CoapEndpoint nodeA;
    private CoapEndpoint nodeB;
    private LockstepPeer device;
    private LockstepPeer deviceRebound;

    @BeforeEach
    void start() throws Exception {
        nodeA = node(NODE_A, storeA, ObserveFixture.config(), heardA, 4);
        nodeB = node(NODE_B, storeB, ObserveFixture.config(), heardB, 5);
        device = LockstepPeer.attach("device", net, DEVICE, clock).defaultDestination(NODE_A);
    }

    @AfterEach
    void stop() {
        device.expectNothing();
        if (deviceRebound != null) {
            deviceRebound.expectNothing();
            deviceRebound.close();
        }
        assertEquals(0, nodeA.openExchanges(), "exchanges left on node A");
        assertEquals(0, nodeB.openExchanges(), "exchanges left on node B");
        nodeA.destroy();
        nodeB.destroy();
        device.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private CoapEndpoint node(InetSocketAddress address, ObservationStore store, Configuration.Builder config,
            List<String> heard, int seed) throws Exception {
        CoapEndpoint e = CoapEndpoint.builder().connector(net.connector(address)).scheduler(clock)
                .config(config.build()).executor(Runnable::run).random(new SplittableRandom(seed))
                .observationStore(store).build();
        e.addNotificationListener((observation, response) -> heard.add(observation.request().options().uriPathString()
                + ":" + response.payloadString() + "@" + response.options().observe()));
        e.start();
        return e;
    }

    private final CoapHandler handlerA = new CoapHandler() {
        @Override
        public void onLoad(CoapResponse response) {
            loadsA.add(response.payloadText() + "@" + response.options().observe());
        }

        @Override
        public void onError(Throwable error) {
            loadsA.add("error " + error);
        }
    };

    /** Node A's client observes /obs on the device; the device accepts with Observe={@code seq}. */
    private CoapObserveRelation observeFromA(CoapClient client, int seq) {
        CoapObserveRelation relation = client.observe(handlerA);
        device.expect().type(Type.CON).code(Code.GET).path("obs").observe(0).from(NODE_A).storeMid("reg")
                .storeToken("t");
        device.ack(device.mid("reg")).response(Code.CONTENT).token(device.token("t")).observe(seq).maxAge(600)
                .payload("v" + seq).go();
        device.advance(ofMillis(1));
        return relation;
    }

    private void notify(LockstepPeer from, Type type, int mid, int seq, String payload, InetSocketAddress to) {
        from.message(type).response(Code.CONTENT).mid(mid).token(device.token("t")).observe(seq).maxAge(600)
                .payload(payload).to(to).go();
        from.advance(ofMillis(1));
    }

    /**
     * The observation is stored once the device accepted it; a notification that reaches node B
     * is matched through the store (one lookup), the next ones by B's own exchange (no lookup),
     * a CON one is acknowledged by B, a stale one is dropped (§3.4), and a final 4.04 (§3.2)
     * reaches B's listeners and removes the observation from the store.
     * <pre>
     *   A: CON GET Obs=0 T=t -&gt; device; ACK 2.05 Obs=5   | stored under t by node a
     *   device -- NON 2.05 Obs=6 T=t --&gt; B                | looked up, adopted, heard
     *   device -- CON 2.05 Obs=7 T=t --&gt; B                | ACK from B, heard, no lookup
     *   device -- NON 2.05 Obs=4 T=t --&gt; B                | stale: not heard
     *   device -- NON 4.04 T=t --&gt; B                      | heard, removed from the store
     * </pre>
     */
    @Test
    void notificationAtAnotherNodeIsMatchedThroughTheStore() {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        CoapObserveRelation relation = observeFromA(client, 5);
        assertEquals(List.of("v5@5"), loadsA);
        MapObservationStore.Entry entry = shared.get(device.token("t"));
        assertEquals("a", entry.node(), "stored by node a");
        Observation stored = Observation.decode(entry.encoded());
        assertEquals(DEVICE, stored.peer());
        assertEquals(0, stored.request().options().observe());

        notify(device, Type.NON, 300, 6, "v6", NODE_B);
        assertEquals(List.of("obs:v6@6"), heardB);
        assertEquals(1, storeB.gets);
        assertEquals(1, nodeB.counters().get("observe.store_hits"));
        assertEquals(1, nodeB.counters().get("observe.adopted"));

        notify(device, Type.CON, 301, 7, "v7", NODE_B);
        device.expect().type(Type.ACK).mid(301).from(NODE_B).emptyAck();
        notify(device, Type.NON, 302, 4, "old", NODE_B);
        assertEquals(List.of("obs:v6@6", "obs:v7@7"), heardB, "fresh ones only (RFC 7641 §3.4)");
        assertEquals(1, storeB.gets, "later notifications match B's exchange");

        device.non().response(Code.NOT_FOUND).mid(303).token(device.token("t")).to(NODE_B).go();
        device.advance(ofMillis(1));
        assertEquals("obs:@-1", heardB.get(2), "the final notification is heard");
        assertNull(shared.get(device.token("t")), "the server ended it: gone from the store");
        assertEquals(0, nodeB.counters().get("observe.adopted"));
        assertEquals(List.of("v5@5"), loadsA, "node A heard nothing of B's notifications");
        assertEquals(List.of(), heardA);

        relation.reactiveCancel(); // A's relation still waited
        client.close();
    }

    /** A token no node stored is looked up once, then answered RST as without a store (RFC 7641 §3.6). */
    @Test
    void unknownTokenIsLookedUpThenReset() {
        device.non().response(Code.CONTENT).mid(400).token("0102030405060708").observe(3).payload("x").to(NODE_B)
                .go();
        device.expect().type(Type.RST).mid(400).from(NODE_B);
        assertEquals(1, storeB.gets);
        assertEquals(1, nodeB.counters().get(Counter.UNMATCHED));
        assertEquals(List.of(), heardB);
        assertEquals(0, nodeB.counters().get("observe.adopted"));
    }

    /**
     * A store that fails the lookup (down, timed out) costs the notification but not the
     * observation: no RST (which would end it at the device, RFC 7641 §3.6); the CON's
     * retransmission is matched once the store answers again.
     */
    @Test
    void failedLookupIsDroppedWithoutReset() {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        observeFromA(client, 1);
        client.close();
        storeB.failing = true;
        notify(device, Type.CON, 450, 2, "while-down", NODE_B);
        assertEquals(0, device.waiting(), "no RST, no ACK");
        assertEquals(1, nodeB.counters().get("observe.store_errors"));
        assertEquals(1, nodeB.counters().get("observe.store_dropped"));
        storeB.failing = false;
        notify(device, Type.CON, 450, 2, "while-down", NODE_B); // the retransmission
        device.expect().type(Type.ACK).mid(450).from(NODE_B).emptyAck();
        assertEquals(List.of("obs:while-down@2"), heardB);
        device.non().response(Code.NOT_FOUND).mid(451).token(device.token("t")).to(NODE_B).go();
        device.advance(ofMillis(1));
        assertEquals(0, shared.size());
    }

    /**
     * One source cannot take the lookup budget: with 2 lookups per source, the third concurrent
     * one is dropped without a word (a CON comes back; a RST would end a real observation), and
     * the two looked up are answered RST once the store answers.
     */
    @Test
    void lookupsAreBoundedPerSource() throws Exception {
        nodeB.destroy();
        nodeB = node(NODE_B, storeB, ObserveFixture.config().set(CoapConfig.OBSERVE_STORE_LOOKUPS_PER_SOURCE, 2),
                heardB, 5);
        storeB.hold();
        for (int i = 0; i < 3; i++) {
            device.non().response(Code.CONTENT).mid(500 + i).token("0a0b0c0d0e0f000" + i).observe(3).to(NODE_B).go();
        }
        device.advance(ofMillis(1));
        assertEquals(2, storeB.gets, "the third was not looked up");
        assertEquals(1, nodeB.counters().get("observe.store_dropped"));
        assertEquals(0, device.waiting(), "nothing answered while the store is busy");
        storeB.release();
        device.advance(ofMillis(1));
        device.expect().type(Type.RST).mid(500);
        device.expect().type(Type.RST).mid(501);
    }

    /**
     * A client that closes leaves its observation in the store (CoapClient.close on an endpoint with
     * a store): the device's next notification to the same node is no longer answered RST but
     * looked up and heard by the node's listeners; proactive cancel of another one removes it.
     */
    @Test
    void closedClientsObservationReachesTheListeners() {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        observeFromA(client, 1);
        client.close();
        assertEquals(1, shared.size(), "the store keeps it");
        notify(device, Type.CON, 600, 2, "after-close", NODE_A);
        device.expect().type(Type.ACK).mid(600).from(NODE_A).emptyAck();
        assertEquals(List.of("obs:after-close@2"), heardA);
        assertEquals(List.of("v1@1"), loadsA, "the closed client's handler heard nothing more");
        // the device ends it (RFC 7641 §3.2): gone from the store, A's adopted exchange ends
        device.non().response(Code.SERVICE_UNAVAILABLE).mid(601).token(device.token("t")).maxAge(30).go();
        device.advance(ofMillis(1));
        assertEquals(0, shared.size());
    }

    /** Cancelling (either way) removes the observation from the store: no node adopts it after. */
    @Test
    void cancelRemovesFromTheStore() {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        CoapObserveRelation relation = observeFromA(client, 1);
        relation.proactiveCancel();
        device.expect().type(Type.CON).code(Code.GET).observe(1).token(device.token("t")).storeMid("c");
        device.ack(device.mid("c")).response(Code.CONTENT).token(device.token("t")).payload("last").go();
        device.advance(ofMillis(1));
        assertEquals(0, shared.size(), "removed at the cancel");
        notify(device, Type.NON, 700, 2, "late", NODE_B);
        device.expect().type(Type.RST).mid(700).from(NODE_B);
        assertEquals(List.of(), heardB);
        client.close();
    }

    /**
     * A node that restarts takes its observations back from the store (those it stored, not
     * another node's) and hears their notifications without a lookup.
     */
    @Test
    void restartedNodeRestoresItsObservations() throws Exception {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        observeFromA(client, 1);
        Token tokenOfA = device.token("t");
        shared.put(Token.fromHex("99"), new MapObservationStore.Entry("b", new Observation(
                registration(client, "99"), DEVICE).encode()));
        client.close();
        nodeA.destroy(); // a stop leaves the store as it is
        assertEquals(2, shared.size());

        MapObservationStore restarted = new MapObservationStore(shared, "a");
        nodeA = node(NODE_A, restarted, ObserveFixture.config(), heardA, 6);
        assertEquals(1, nodeA.counters().get("observe.adopted"), "only node a's observation");
        notify(device, Type.NON, 800, 2, "after-restart", NODE_A);
        assertEquals(List.of("obs:after-restart@2"), heardA);
        assertEquals(0, restarted.gets, "matched without a lookup");
        assertTrue(shared.containsKey(tokenOfA));
        device.non().response(Code.NOT_FOUND).mid(801).token(tokenOfA).go();
        device.advance(ofMillis(1));
        assertEquals(1, shared.size(), "node b's observation stays");
    }

    /**
     * The device's NAT rebinds: its notification comes from a new port, matches no exchange for
     * that address, is looked up again and adopted there; the exchange for the old address ends.
     * With room for one adopted observation, adopting a second forgets the first locally only:
     * its next notification is looked up again.
     */
    @Test
    void reboundDeviceAndAdoptionLimit() throws Exception {
        nodeB.destroy();
        nodeB = node(NODE_B, storeB, ObserveFixture.config().set(CoapConfig.OBSERVE_STORE_MAX_ADOPTED, 1), heardB, 5);
        deviceRebound = LockstepPeer.attach("device-rebound", net, DEVICE_REBOUND, clock).defaultDestination(NODE_B);
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs", nodeA);
        observeFromA(client, 1);
        notify(device, Type.NON, 900, 2, "a", NODE_B);
        notify(deviceRebound, Type.NON, 901, 3, "b", NODE_B);
        assertEquals(List.of("obs:a@2", "obs:b@3"), heardB);
        assertEquals(2, storeB.gets, "looked up again at the new address");
        assertEquals(1, nodeB.openExchanges(), "the old address's exchange ended");

        client.close();
        CoapClient second = new CoapClient("coap://10.0.0.1:5683/other", nodeA);
        CoapObserveRelation other = second.observe(handlerA);
        device.expect().type(Type.CON).code(Code.GET).path("other").observe(0).storeMid("reg2").storeToken("t2");
        device.ack(device.mid("reg2")).response(Code.CONTENT).token(device.token("t2")).observe(1).payload("o").go();
        device.advance(ofMillis(1));
        device.non().response(Code.CONTENT).mid(902).token(device.token("t2")).observe(2).payload("o2").to(NODE_B)
                .go();
        device.advance(ofMillis(1));
        assertEquals(1, nodeB.counters().get("observe.adopted"), "the first was forgotten here");
        assertEquals(3, storeB.gets);
        notify(deviceRebound, Type.NON, 903, 4, "c", NODE_B);
        assertEquals(4, storeB.gets, "the forgotten one is looked up again");
        assertEquals(List.of("obs:a@2", "obs:b@3", "other:o2@2", "obs:c@4"), heardB);

        // end both at the device (§3.2), so that no exchange stays open
        deviceRebound.non().response(Code.NOT_FOUND).mid(904).token(device.token("t")).go();
        deviceRebound.advance(ofMillis(1));
        device.non().response(Code.NOT_FOUND).mid(905).token(device.token("t2")).to(NODE_B).go();
        device.advance(ofMillis(1));
        assertEquals(0, shared.size());
        other.reactiveCancel();
        second.close();
    }

    /** Notification listeners need a store; without one the endpoint says so. */
    @Test
    void listenersNeedAStore() {
        CoapEndpoint plain = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.1.9", 1)))
                .scheduler(clock).executor(Runnable::run).build();
        try {
            assertNull(plain.observationStore());
            assertThrows(IllegalStateException.class, () -> plain.addNotificationListener((o, r) -> { }));
        } finally {
            plain.destroy();
        }
    }

    /** GET with Observe=0 and the token {@code hex} ("" for none). */
    private static Request registration(CoapClient client, String hex) {
        Request.Builder b = client.newRequest(Code.GET).token(Token.fromHex(hex));
        b.options().observe(0);
        return b.build();
    }

    /** The stored form round-trips and refuses what is not one (another version, truncated, a response). */
    @Test
    void encodedFormRoundTripsAndRefusesOthers() {
        CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs?x=1", nodeA);
        Observation o = new Observation(registration(client, "a1b2c3"), DEVICE);
        byte[] bytes = o.encode();
        assertEquals(o, Observation.decode(bytes));
        assertEquals("obs", Observation.decode(bytes).request().options().uriPathString());
        byte[] other = bytes.clone();
        other[0] = 2;
        assertThrows(IllegalArgumentException.class, () -> Observation.decode(other));
        assertThrows(IllegalArgumentException.class, () -> Observation.decode(new byte[] {1, 4, 10, 0}));
        assertThrows(IllegalArgumentException.class,
                () -> new Observation(registration(client, ""), DEVICE), "no token");
        assertThrows(IllegalArgumentException.class,
                () -> new Observation(client.newRequest(Code.GET).token(Token.fromHex("01")).build(), DEVICE),
                "no Observe=0");
        client.close();
    }
}
