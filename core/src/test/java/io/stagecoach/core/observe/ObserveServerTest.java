package io.stagecoach.core.observe;

import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server side of RFC 7641 against a scripted client, on the virtual clock with the protocol
 * stage inline. {@code Obs=n} is the Observe option; {@code T} the token. Each test ends with no
 * relation, no open exchange and nothing more on the wire.
 */
class ObserveServerTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 7);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint endpoint;
    private CoapServer server;
    private LockstepPeer client;
    private volatile String value = "v0";
    private volatile boolean gone;
    private final CoapResource obs = CoapResource.named("obs").setObservable(true).onGet(ex -> {
        if (gone) {
            ex.respond(Code.NOT_FOUND);
        } else {
            ex.respond(Code.CONTENT, r -> r.payload(value).maxAge(5));
        }
    });
    private final CoapResource obsNon = CoapResource.named("obs-non").setObservable(true).setObserveType(Type.NON)
            .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload(value).maxAge(5)));
    private final CoapResource plain = CoapResource.named("plain").onGet(ex -> ex.respond("not observable"));

    private void start(Configuration config) throws Exception {
        endpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(3)).build();
        server = CoapServer.builder().endpoint(endpoint).build();
        server.add(obs, obsNon, plain);
        server.start();
        client = LockstepPeer.attach("client", net, new InetSocketAddress("10.0.0.2", 40000), clock)
                .defaultDestination(serverAddress);
    }

    private void start() throws Exception {
        start(ObserveFixture.config().build());
    }

    @AfterEach
    void stop() {
        client.expectNothing();
        assertEquals(0, endpoint.observeRelations(), "relations left");
        assertEquals(0, obs.observerCount() + obsNon.observerCount(), "observers left on resources");
        assertEquals(0, endpoint.openExchanges(), "exchanges left");
        server.destroy();
        client.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Registers T on {@code path} with CON GET Obs=0 and returns the Observe value of the answer. */
    private int register(String token, int mid, String path) {
        client.con().get().mid(mid).token(token).path(path).observe(0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).mid(mid).token(token).hasOption(OptionNumber.OBSERVE)
                .optionUint(OptionNumber.MAX_AGE, 5).payload(value).storeObserve("reg");
        return (Integer) client.var("reg");
    }

    /** Ends the relation of T with GET Obs=1 (and checks the plain answer). */
    private void deregister(String token, int mid, String path) {
        client.con().get().mid(mid).token(token).path(path).observe(1).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).mid(mid).token(token).noOption(OptionNumber.OBSERVE);
    }

    /**
     * <pre>
     * client                                      server
     *   | CON GET /obs Obs=0 T=0b ------------------->|  registers (peer, 0b)
     *   |<------------- ACK 2.05 Obs=n Max-Age=5 "v0" |
     *   |<------------- CON 2.05 Obs=n+1 "v1"  T=0b   |  changed()
     *   | ACK ---------------------------------------->|
     *   |<------------- CON 2.05 Obs=n+2 "v2"  T=0b   |  changed()
     *   | ACK ---------------------------------------->|
     *   | CON GET /obs Obs=1 T=0b ------------------->|  deregisters
     *   |<------------- ACK 2.05 (no Observe) "v2"    |
     * </pre>
     */
    @Test
    void registrationThenNotificationsWithIncreasingObserveThenDeregistration() throws Exception {
        start();
        int n = register("0b", 1, "obs");
        assertEquals(1, endpoint.observeRelations(), "one relation after the registration");
        for (int i = 1; i <= 2; i++) {
            value = "v" + i;
            obs.changed();
            client.expect().type(Type.CON).code(Code.CONTENT).token("0b").observe(n + i).optionUint(OptionNumber.MAX_AGE, 5)
                    .payload(value).storeMid("n");
            client.ack(client.mid("n")).go();
        }
        client.con().get().mid(2).token("aa").path("obs").go(); // a plain GET does not touch the relation
        client.expect().type(Type.ACK).code(Code.CONTENT).noOption(OptionNumber.OBSERVE);
        assertEquals(1, obs.observerCount());
        deregister("0b", 3, "obs");
        obs.changed();
        client.expectNothingFor(ofSeconds(5));
    }

    /**
     * A registration with the same token replaces the relation (RFC 7641 §4.1): one relation, and
     * the notification goes out once.
     */
    @Test
    void reRegistrationWithTheSameTokenReplacesTheRelation() throws Exception {
        start();
        register("0c", 1, "obs");
        register("0c", 2, "obs");
        assertEquals(1, endpoint.observeRelations(), "replaced, not added");
        assertEquals(1, obs.observerCount());
        obs.changed();
        client.expect().type(Type.CON).token("0c").storeMid("n");
        client.ack(client.mid("n")).go();
        client.expectNothingFor(ofSeconds(3));
        deregister("0c", 3, "obs");
    }

    /**
     * NON notifications with OBSERVE_MAX_NON = 2: NON, NON, CON, NON ...; and after the CON
     * interval (10 s) without a CON the next one is CON too (RFC 7641 §4.5).
     */
    @Test
    void nonNotificationsWithAPeriodicCon() throws Exception {
        start(ObserveFixture.config().set(CoapConfig.OBSERVE_MAX_NON, 2)
                .set(CoapConfig.OBSERVE_CON_INTERVAL, ofSeconds(10)).build());
        client.non().get().mid(1).token("0d").path("obs-non").observe(0).go();
        client.expect().type(Type.NON).code(Code.CONTENT).token("0d").storeObserve("reg");
        int n = (Integer) client.var("reg");
        Type[] expected = {Type.NON, Type.NON, Type.CON, Type.NON, Type.NON, Type.CON};
        for (int i = 0; i < expected.length; i++) {
            obsNon.changed();
            client.expect().type(expected[i]).observe(n + i + 1).storeMid("n");
            if (expected[i] == Type.CON) {
                client.ack(client.mid("n")).go();
            }
        }
        client.advance(ofSeconds(11));
        obsNon.changed();
        client.expect().type(Type.CON).observe(n + 7).storeMid("n");
        client.ack(client.mid("n")).go();
        assertEquals(List.of("exchange-cleanup", "observe", "blockwise", "echo", "token", "reliability"), endpoint.layerNames());
        deregister("0d", 2, "obs-non");
    }

    /**
     * While a CON notification is unacknowledged, newer ones replace the pending one; the
     * retransmission carries the freshest state, with a new MID, on the old schedule (RFC 7641 §4.5.2).
     * <pre>
     *   |<------------- CON 2.05 Obs=n+1 "v1" MID=a   |  not acknowledged
     *   |                                             |  changed() "v2", changed() "v3": nothing sent
     *   |<------------- CON 2.05 Obs=n+3 "v3" MID=b   |  after ACK_TIMEOUT: the retransmission
     *   | ACK MID=b ---------------------------------->|
     *   |  (nothing more: "v2" was never sent)        |
     * </pre>
     */
    @Test
    void pendingNotificationReplacesTheOneInFlight() throws Exception {
        start();
        int n = register("0e", 1, "obs");
        value = "v1";
        obs.changed();
        client.expect().type(Type.CON).observe(n + 1).payload("v1").storeMid("a");
        value = "v2";
        obs.changed();
        value = "v3";
        obs.changed();
        client.expectWithin(ofSeconds(4)).type(Type.CON).observe(n + 3).payload("v3").storeMid("b");
        assertTrue(client.mid("a") != client.mid("b"), "the replacement has its own MID");
        assertEquals(2, endpoint.counters().get("observe.notifications_replaced"));
        client.ack(client.mid("b")).go();
        client.expectNothingFor(ofSeconds(10));
        deregister("0e", 2, "obs");
    }

    /** The pending notification goes out as soon as the one in flight is acknowledged. */
    @Test
    void pendingNotificationIsSentOnTheAck() throws Exception {
        start();
        int n = register("0f", 1, "obs");
        obs.changed();
        client.expect().type(Type.CON).observe(n + 1).storeMid("a");
        value = "v9";
        obs.changed();
        client.expectNothingFor(Duration.ofMillis(500));
        client.ack(client.mid("a")).go();
        client.expect().type(Type.CON).observe(n + 2).payload("v9").storeMid("b");
        client.ack(client.mid("b")).go();
        deregister("0f", 2, "obs");
    }

    /** A RST answering a NON notification removes the relation (RFC 7641 §3.6). */
    @Test
    void rstToANonNotificationCancels() throws Exception {
        start();
        client.non().get().mid(1).token("10").path("obs-non").observe(0).go();
        client.expect().type(Type.NON).token("10");
        obsNon.changed();
        client.expect().type(Type.NON).token("10").storeMid("n");
        obsNon.changed();
        client.expect().type(Type.NON).token("10");
        client.rst(client.mid("n")).go(); // a RST to the previous (not the latest) notification still counts
        client.advance(Duration.ofMillis(1));
        assertEquals(0, endpoint.observeRelations(), "relation removed by the RST");
        obsNon.changed();
        client.expectNothingFor(ofSeconds(5));
    }

    /** A RST answering a CON notification removes the relation and stops its retransmission. */
    @Test
    void rstToAConNotificationCancels() throws Exception {
        start();
        register("11", 1, "obs");
        obs.changed();
        client.expect().type(Type.CON).token("11").storeMid("n");
        client.rst(client.mid("n")).go();
        client.advance(Duration.ofMillis(1));
        assertEquals(0, obs.observerCount());
        client.expectNothingFor(ofSeconds(100));
    }

    /** A CON notification never acknowledged: 4 retransmissions, then the relation is gone (RFC 7641 §4.5). */
    @Test
    void conNotificationTimeoutCancels() throws Exception {
        start();
        register("12", 1, "obs");
        obs.changed();
        client.expect().type(Type.CON).token("12");
        for (int i = 0; i < 4; i++) {
            client.expectWithin(ofSeconds(50)).type(Type.CON).token("12");
        }
        client.expectNothingFor(ofSeconds(100));
        assertEquals(0, endpoint.observeRelations(), "relation removed after the timeout");
        obs.changed();
        client.expectNothingFor(ofSeconds(5));
    }

    /**
     * Deleting the resource: a final CON 4.04 without Observe, then no relation (RFC 7641 §3.2).
     * <pre>
     *   |<------------- CON 4.04 T=13 (no Observe)    |  server.remove(obs)
     *   | ACK ---------------------------------------->|  relation and exchange gone
     * </pre>
     */
    @Test
    void resourceDeletionSendsAFinal404() throws Exception {
        start();
        register("13", 1, "obs");
        assertTrue(server.remove(obs));
        client.expect().type(Type.CON).code(Code.NOT_FOUND).token("13").noOption(OptionNumber.OBSERVE).storeMid("f");
        assertEquals(0, obs.observerCount(), "forgotten at once");
        client.ack(client.mid("f")).go();
        obs.changed();
        client.expectNothingFor(ofSeconds(5));
    }

    /** A notification run whose handler answers non-2.xx ends the relation the same way. */
    @Test
    void nonSuccessNotificationEndsTheRelation() throws Exception {
        start();
        register("14", 1, "obs");
        gone = true;
        obs.changed();
        client.expect().type(Type.CON).code(Code.NOT_FOUND).token("14").noOption(OptionNumber.OBSERVE).storeMid("f");
        client.ack(client.mid("f")).go();
        assertEquals(0, endpoint.observeRelations());
    }

    /** Forgetting observers without a word (plugtest /obs-reset): the next notification never comes. */
    @Test
    void clearObserversForgetsSilently() throws Exception {
        start();
        register("15", 1, "obs");
        obs.clearObservers();
        obs.changed();
        client.expectNothingFor(ofSeconds(5));
    }

    /** Stopping the server ends every relation. */
    @Test
    void serverStopEndsRelations() throws Exception {
        start();
        register("16", 1, "obs");
        client.non().get().mid(2).token("17").path("obs-non").observe(0).go();
        client.expect().type(Type.NON);
        assertEquals(2, endpoint.observeRelations());
        server.stop();
        assertEquals(0, endpoint.observeRelations(), "no relation after stop");
        assertEquals(0, obs.observerCount() + obsNon.observerCount());
    }

    /**
     * Limits: 2 per resource, 3 in the server. The third registration on /obs and the fourth in
     * all are served as plain GETs (no Observe) and counted.
     */
    @Test
    void limitsServeFurtherRegistrationsAsPlainGets() throws Exception {
        start(ObserveFixture.config().set(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_RESOURCE, 2)
                .set(CoapConfig.OBSERVE_MAX_OBSERVERS, 3).build());
        register("20", 1, "obs");
        register("21", 2, "obs");
        client.con().get().mid(3).token("22").path("obs").observe(0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).noOption(OptionNumber.OBSERVE);
        client.non().get().mid(4).token("23").path("obs-non").observe(0).go();
        client.expect().type(Type.NON).hasOption(OptionNumber.OBSERVE);
        client.non().get().mid(5).token("24").path("obs-non").observe(0).go();
        client.expect().type(Type.NON).noOption(OptionNumber.OBSERVE);
        assertEquals(2, server.counters().get(0).observeRejected(), "per resource, then per server");
        assertEquals(3, endpoint.observeRelations());
        client.con().get().mid(6).token("30").path("plain").observe(0).go(); // not observable: plain, not counted
        client.expect().type(Type.ACK).code(Code.CONTENT).noOption(OptionNumber.OBSERVE);
        assertEquals(2, server.counters().get(0).observeRejected());
        deregister("20", 7, "obs");
        deregister("21", 8, "obs");
        client.con().get().mid(9).token("23").path("obs-non").observe(1).go();
        client.expect().type(Type.ACK).noOption(OptionNumber.OBSERVE);
    }

    /** Sequence numbers are 24-bit and wrap: the layer's freshness rule and the wrap (RFC 7641 §4.4). */
    @Test
    void sequenceNumbersWrapAt24Bits() throws Exception {
        start();
        assertEquals(0, io.stagecoach.core.network.internal.layers.ObserveSequence.next(0xFF_FFFF));
        assertTrue(io.stagecoach.core.network.internal.layers.ObserveSequence.isNewer(0xFF_FFFF, 0), "0 follows 2^24-1");
        assertTrue(!io.stagecoach.core.network.internal.layers.ObserveSequence.isNewer(5, 5), "equal is not newer");
        register("31", 1, "obs");
        deregister("31", 2, "obs");
    }

    /**
     * A peer may hold OBSERVE_MAX_OBSERVERS_PER_SOURCE relations (here 1): its second registration is
     * served as a plain GET, while another peer still registers.
     * <pre>
     * client A  | GET /obs Observe=0 T=40 ->|<- 2.05 Observe=n     relation 1 of A
     * client A  | GET /obs-non Observe=0 T=41 ->|<- 2.05 (no Observe)  A is at its limit
     * client B  | GET /obs Observe=0 T=42 ->|<- 2.05 Observe=n     B has its own budget
     * </pre>
     */
    @Test
    void onePeerCannotTakeMoreThanItsShareOfRelations() throws Exception {
        start(ObserveFixture.config().set(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_SOURCE, 1).build());
        register("40", 1, "obs");
        client.non().get().mid(2).token("41").path("obs-non").observe(0).go();
        client.expect().type(Type.NON).noOption(OptionNumber.OBSERVE);
        LockstepPeer other = LockstepPeer.attach("other", net, new InetSocketAddress("10.0.0.3", 40000), clock)
                .defaultDestination(serverAddress);
        other.con().get().mid(3).token("42").path("obs").observe(0).go();
        other.expect().type(Type.ACK).code(Code.CONTENT).hasOption(OptionNumber.OBSERVE);
        assertEquals(1, server.counters().get(0).observeRejected());
        assertEquals(2, endpoint.observeRelations());
        other.con().get().mid(4).token("42").path("obs").observe(1).go();
        other.expect().type(Type.ACK).noOption(OptionNumber.OBSERVE);
        other.close();
        deregister("40", 5, "obs");
    }
}
