package io.stagecoach.core.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Observe that a hostile or careless party cannot turn into a weapon (docs/security.md, outcome
 * 4): {@code changed()} does no observer's work on the caller's thread, a burst of changes costs
 * one notification per observer, and notifications take only their share of the connector's
 * outbound queue. (The NON cap, no NON while a CON is unacknowledged and the end of a relation
 * whose CON times out are in {@link ObserveServerTest}.) NON notifications from {@code /obs};
 * scripted observers on the in-memory network, virtual clock, protocol stage inline: what
 * {@code changed()} hands to the stage runs when the test runs the clock's due tasks.
 */
class ObserveHardeningTest {

    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final List<LockstepPeer> observers = new ArrayList<>();
    private final AtomicInteger handled = new AtomicInteger();
    private volatile String value = "v0";
    private final CoapResource obs = CoapResource.named("obs").setObservable(true).setObserveType(Type.NON)
            .onGet(ex -> {
                handled.incrementAndGet();
                ex.respond(Code.CONTENT, r -> r.payload(value).maxAge(60));
            });
    private final List<SendCallback> held = new ArrayList<>();
    private final AtomicInteger sent = new AtomicInteger();
    private CoapServer server;
    private CoapEndpoint endpoint;

    /**
     * @param holdSends keep every datagram's send callback instead of completing it, as a
     *        connector whose outbound queue drains slowly would
     */
    private void start(Configuration config, boolean holdSends) throws Exception {
        // No executor: the stage is inline on the receive thread (the network's, here the test's),
        // and work submitted to it from elsewhere runs as a task of the endpoint's scheduler.
        endpoint = CoapEndpoint.builder().connector(net.connector(SERVER)).config(config).scheduler(clock)
                .random(new SplittableRandom(5))
                .wrapConnector(c -> new Watching(c, holdSends)).build();
        server = CoapServer.builder().endpoint(endpoint).build();
        server.add(obs);
        server.start();
    }

    private static Configuration.Builder config() {
        return ObserveFixture.config().set(CoapConfig.PROTOCOL_THREADS, 0);
    }

    @AfterEach
    void tearDown() {
        observers.forEach(LockstepPeer::close);
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** {@code n} observers of /obs, each on its own address, registered with NON GET Obs=0. */
    private void register(int n) {
        for (int i = 0; i < n; i++) {
            LockstepPeer p = LockstepPeer.attach("observer-" + i, net,
                    new InetSocketAddress("10.0.1." + (i % 250 + 1), 40_000 + i), clock).defaultDestination(SERVER);
            observers.add(p);
            p.non().get().mid(1).token("0a").path("obs").observe(0).go();
            p.expect().type(Type.NON).code(Code.CONTENT).hasOption(OptionNumber.OBSERVE).payload(value);
        }
        assertEquals(n, obs.observerCount());
    }

    /** Every notification each observer received since the last call, as payload texts. */
    private List<List<String>> received() {
        List<List<String>> out = new ArrayList<>();
        for (LockstepPeer p : observers) {
            List<String> texts = new ArrayList<>();
            while (p.waiting() > 0) {
                Message m = p.expect().message();
                texts.add(((Response) m).payloadString());
            }
            out.add(texts);
        }
        return out;
    }

    @Test
    void changedRunsNoObserversWorkOnTheCallersThread() throws Exception {
        start(config().build(), false);
        register(50);
        int before = handled.get();
        int sentBefore = sent.get();
        value = "v1";
        obs.changed();
        assertEquals(before, handled.get(), "no handler ran inside changed()");
        assertEquals(sentBefore, sent.get(), "nothing sent inside changed()");
        clock.runDue();
        assertEquals(before + 50, handled.get(), "one handler run per observer, on the protocol stage");
        assertTrue(received().stream().allMatch(t -> t.equals(List.of("v1"))), "each observer notified once");
    }

    @Test
    void aBurstOfChangesCostsOneNotificationPerObserver() throws Exception {
        start(config().build(), false);
        register(20);
        int before = handled.get();
        for (int i = 1; i <= 100; i++) {
            value = "v" + i;
            obs.changed();
        }
        clock.runDue();
        assertEquals(before + 20, handled.get(), "100 changes, one handler run per observer");
        assertTrue(received().stream().allMatch(t -> t.equals(List.of("v100"))),
                "each observer gets the latest state once (RFC 7641 §4.5.2)");
    }

    @Test
    void notificationsTakeOnlyTheirShareOfTheOutboundQueueAndTheRestWaitTheirTurn() throws Exception {
        start(config().set(CoapConfig.OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT, 8).build(), true);
        register(20);
        held.clear(); // the registration answers are not notifications
        value = "v1";
        obs.changed();
        clock.runDue();
        List<List<String>> first = received();
        assertEquals(8, first.stream().filter(t -> !t.isEmpty()).count(), "8 notifications in flight: " + first);
        assertEquals(12, endpoint.counters().get(Counter.NOTIFICATIONS_HELD), "the other 12 wait");

        LockstepPeer other = LockstepPeer.attach("other", net, new InetSocketAddress("10.0.2.1", 40_000), clock)
                .defaultDestination(SERVER);
        observers.add(other);
        other.con().get().mid(7).token("0b").path("obs").go();
        other.expect().type(Type.ACK).code(Code.CONTENT).mid(7).payload("v1");

        List<List<String>> later = new ArrayList<>();
        for (int turn = 0; turn < 2; turn++) {
            completeHeldSends(); // the connector's queue drains: each place goes to a waiting notification
            clock.runDue();
            assertTrue(held.size() <= 8, "never more than the share in the connector: " + held.size());
            later.addAll(received());
        }
        long notified = later.stream().filter(t -> t.equals(List.of("v1"))).count();
        assertEquals(12, notified, "the 12 that waited arrive, once each: " + later);
        assertEquals(0, endpoint.counters().get(Counter.NOTIFICATIONS_DROPPED));

        completeHeldSends();
        value = "v2";
        obs.changed();
        clock.runDue();
        List<List<String>> second = received();
        assertEquals(8, second.stream().filter(t -> t.equals(List.of("v2"))).count(), "8 more in flight: " + second);
    }

    @Test
    void notificationsBeyondTheWaitingBoundCountAsLost() throws Exception {
        start(config().set(CoapConfig.OBSERVE_MAX_NOTIFICATIONS_IN_FLIGHT, 1)
                .set(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_RESOURCE, 200).build(), true);
        register(100);
        held.clear();
        value = "v1";
        obs.changed();
        clock.runDue();
        assertEquals(1, received().stream().filter(t -> !t.isEmpty()).count(), "1 in flight");
        assertEquals(64, endpoint.counters().get(Counter.NOTIFICATIONS_HELD), "64 (64 x 1) wait");
        assertEquals(35, endpoint.counters().get(Counter.NOTIFICATIONS_DROPPED), "the rest are lost");
    }

    /** Reports every datagram the test connector holds as sent; sends this triggers are held anew. */
    private void completeHeldSends() {
        List<SendCallback> done = new ArrayList<>(held);
        held.clear();
        done.forEach(SendCallback::onSent);
    }

    /**
     * Counts the datagrams the server sends and passes them on at once; holding, it reports them
     * sent only when the test says so.
     */
    private final class Watching extends ForwardingConnector {
        private final boolean hold;

        Watching(Connector delegate, boolean hold) {
            super(delegate);
            this.hold = hold;
        }

        @Override
        public void send(RawData data) {
            sent.incrementAndGet();
            if (!hold) {
                super.send(data);
                return;
            }
            if (data.callback() != null) {
                held.add(data.callback());
            }
            super.send(RawData.outbound(data.bytes(), data.context(), null));
        }
    }
}
