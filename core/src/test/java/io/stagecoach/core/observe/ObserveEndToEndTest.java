package io.stagecoach.core.observe;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CoapClient.observe against CoapServer over the in-memory network on the virtual clock, protocol
 * stages inline: the load case of 1,000 relations, 1,000 changes, Observe + Block2 end to
 * end, and reactive cancellation reaching the server.
 */
class ObserveEndToEndTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 21);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final List<CoapEndpoint> clients = new ArrayList<>();
    private CoapEndpoint serverEndpoint;
    private CoapServer server;
    private volatile String value = "0";

    /** What one observer saw. */
    private static final class Recorder implements CoapHandler {
        int last = -1;
        int deliveries;
        int outOfOrder;
        String lastPayload;
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void onLoad(CoapResponse response) {
            int seq = response.options().observe();
            if (seq <= last) {
                outOfOrder++; // numbers stay far below 2^23 here, so plain comparison is the order
            }
            last = seq;
            deliveries++;
            lastPayload = response.payloadText();
        }

        @Override
        public void onError(Throwable error) {
            errors.add(error);
        }
    }

    private void startServer(Configuration config, CoapResource... resources) throws Exception {
        serverEndpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(serverEndpoint).build();
        server.add(resources);
        server.start();
    }

    private CoapEndpoint client(Configuration config, int i) throws Exception {
        CoapEndpoint e = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.1." + (i / 200 + 1),
                        40000 + i % 200))).config(config).scheduler(clock).executor(Runnable::run)
                .random(new SplittableRandom(100 + i)).build();
        e.start();
        clients.add(e);
        return e;
    }

    @AfterEach
    void stop() {
        clock.advance(ofSeconds(1));
        assertEquals(0, serverEndpoint.observeRelations(), "server relations left");
        assertEquals(0, serverEndpoint.openExchanges(), "server exchanges left");
        assertEquals(0, serverEndpoint.blockwiseTransfers(), "server block-wise state left");
        for (CoapEndpoint c : clients) {
            assertEquals(0, c.openExchanges(), "client exchanges left");
            assertEquals(0, c.blockwiseTransfers(), "client block-wise state left");
            c.destroy();
        }
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * 1,000 relations (100 client endpoints × 10) on one NON resource, 1,000 changed() calls 10 ms
     * apart over links of 5 ms with 5 % of datagrams delayed up to 30 ms more (reordering). Every
     * observer sees strictly increasing Observe numbers and ends with the last value; every 100th
     * notification is CON (OBSERVE_MAX_NON). Then all cancel proactively: nothing is left.
     * NON_LIFETIME is 5 s so that a client's duplicate-detection entries for its 10,000
     * notifications stay below DEDUP_MAX_ENTRIES_PER_SOURCE.
     */
    @Test
    void thousandObserversThousandChanges() throws Exception {
        net.setDefaultConditions(LinkConditions.builder().delay(ofMillis(5)).reordering(0.05, ofMillis(30)).build());
        Configuration config = ObserveFixture.config().set(CoapConfig.NON_LIFETIME, ofSeconds(5))
                .set(CoapConfig.OBSERVE_MAX_OBSERVERS_PER_SOURCE, 1_000) // 1,000 observers from one host
                .set(CoapConfig.DEDUP_SWEEP_INTERVAL, ofSeconds(1)).build();
        CoapResource resource = CoapResource.named("obs-non").setObservable(true).setObserveType(Type.NON)
                .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload(value).maxAge(60)));
        startServer(config, resource);
        List<Recorder> recorders = new ArrayList<>();
        List<CoapObserveRelation> relations = new ArrayList<>();
        for (int e = 0; e < 100; e++) {
            CoapClient client = new CoapClient("coap://10.0.0.1:5683/obs-non", client(config, e));
            for (int r = 0; r < 10; r++) {
                Recorder rec = new Recorder();
                recorders.add(rec);
                relations.add(client.observe(rec));
            }
        }
        long wall = System.nanoTime();
        long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        clock.advance(ofSeconds(1)); // NSTART 1: each client endpoint registers its 10 one after the other
        assertEquals(1000, resource.observerCount(), "every registration accepted");
        for (int i = 1; i <= 1000; i++) {
            value = Integer.toString(i);
            resource.changed();
            clock.advance(ofMillis(10));
        }
        clock.advance(ofSeconds(1));
        long stale = 0;
        for (int i = 0; i < recorders.size(); i++) {
            Recorder rec = recorders.get(i);
            assertEquals(List.of(), rec.errors, "observer " + i);
            assertEquals(0, rec.outOfOrder, "observer " + i + " saw a number go backwards");
            assertEquals("1000", rec.lastPayload, "observer " + i + " ends with the last value");
            stale += relations.get(i).staleNotifications();
        }
        assertTrue(stale > 0, "the reordering link made some notifications arrive late (dropped as stale)");
        long cons = serverEndpoint.counters().get(io.stagecoach.core.network.EndpointCounters.Counter.SENT_CON);
        assertTrue(cons >= 100_000 && cons <= 170_000, "about every 6th notification CON: at most 5 NON between"
                + " two (fewer when a newer one replaced it in flight), got " + cons);
        List<CompletableFuture<CoapResponse>> cancels = new ArrayList<>();
        relations.forEach(r -> cancels.add(r.proactiveCancel()));
        clock.advance(ofSeconds(1));
        cancels.forEach(f -> assertTrue(f.isDone() && f.join().code() == Code.CONTENT, "deregistration answered"));
        assertEquals(0, resource.observerCount());
        // Everything runs on this thread (inline stages, virtual clock): its CPU time is the cost.
        System.out.printf("observe load: 1000 relations x 1000 changes: %d ms wall, %d ms CPU of the test thread,"
                + " %d stale dropped, %d CON notifications%n", (System.nanoTime() - wall) / 1_000_000,
                (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu) / 1_000_000,
                stale, cons);
    }

    /**
     * A 200-byte observable resource with 64-byte blocks: the registration answer and each
     * notification arrive as block 0 with Observe; the client fetches blocks 1..3 and delivers
     * 200 bytes each time (RFC 7959 §2.6).
     */
    @Test
    void observeWithBlock2EndToEnd() throws Exception {
        Configuration config = ObserveFixture.config().set(CoapConfig.BLOCKWISE_PREFERRED_BLOCK_SIZE, 64)
                .set(CoapConfig.BLOCKWISE_MAX_MESSAGE_SIZE, 64).build();
        CoapResource large = CoapResource.named("obs-large").setObservable(true).onGet(ex -> ex.respond(Code.CONTENT,
                r -> r.payload(value.repeat(200 / value.length())).etag(value.getBytes()).maxAge(60)));
        startServer(config, large);
        Recorder rec = new Recorder();
        CoapObserveRelation relation = new CoapClient("coap://10.0.0.1:5683/obs-large", client(config, 0)).observe(rec);
        clock.advance(ofMillis(100));
        assertEquals("0".repeat(200), rec.lastPayload, "registration answer reassembled");
        value = "ab";
        large.changed();
        clock.advance(ofMillis(100));
        assertEquals("ab".repeat(100), rec.lastPayload, "notification reassembled");
        assertEquals(2, rec.deliveries);
        relation.proactiveCancel();
        clock.advance(ofMillis(100));
        assertEquals(0, large.observerCount());
    }

    /**
     * Reactive cancel end to end: the client forgets, the next notification draws a RST, and the
     * server drops the relation (RFC 7641 §3.6).
     */
    @Test
    void reactiveCancelReachesTheServer() throws Exception {
        Configuration config = ObserveFixture.config().build();
        CoapResource obs = CoapResource.named("obs").setObservable(true)
                .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload(value)));
        startServer(config, obs);
        Recorder rec = new Recorder();
        CoapObserveRelation relation = new CoapClient("coap://10.0.0.1:5683/obs", client(config, 0)).observe(rec);
        clock.advance(ofMillis(100));
        assertEquals(1, serverEndpoint.observeRelations());
        relation.reactiveCancel();
        assertTrue(relation.isCanceled());
        assertEquals(1, serverEndpoint.observeRelations(), "the server does not know yet");
        value = "1";
        obs.changed();
        clock.advance(ofMillis(100));
        assertEquals(0, serverEndpoint.observeRelations(), "the RST ended it");
        assertEquals(1, rec.deliveries, "the notification after the cancel was not delivered");
    }
}
