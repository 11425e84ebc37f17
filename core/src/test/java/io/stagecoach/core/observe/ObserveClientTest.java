package io.stagecoach.core.observe;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client side of RFC 7641 (CoapClient.observe) against a scripted server on the virtual clock.
 * The handler records "payload@Observe" for each delivery; each test ends with no open exchange and
 * no block-wise state on the client.
 */
class ObserveClientTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 9);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final InetSocketAddress clientAddress = new InetSocketAddress("10.0.0.2", 40000);
    private final List<String> loads = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();
    private final CoapHandler handler = new CoapHandler() {
        @Override
        public void onLoad(CoapResponse response) {
            loads.add(response.payloadText() + "@" + response.options().observe());
        }

        @Override
        public void onError(Throwable error) {
            errors.add(error);
        }
    };
    private CoapEndpoint endpoint;
    private LockstepPeer server;
    private CoapClient client;

    @BeforeEach
    void start() throws Exception {
        endpoint = CoapEndpoint.builder().connector(net.connector(clientAddress)).scheduler(clock)
                .config(ObserveFixture.config().build()).executor(Runnable::run).random(new SplittableRandom(4)).build();
        endpoint.start();
        server = LockstepPeer.attach("server", net, serverAddress, clock).defaultDestination(clientAddress);
        client = new CoapClient("coap://10.0.0.1:5683/obs", endpoint);
    }

    @AfterEach
    void stop() {
        server.expectNothing();
        assertEquals(0, endpoint.openExchanges(), "client exchanges left");
        assertEquals(0, endpoint.blockwiseTransfers(), "block-wise state left");
        assertEquals(0, endpoint.counters().get("observe.block_fetches"), "block follow-ups left");
        endpoint.destroy();
        server.close();
    }

    /** The client registers; the scripted server answers with Obs={@code seq}, Max-Age={@code maxAge}. */
    private CoapObserveRelation registerAnswered(int seq, long maxAge, String payload) {
        CoapObserveRelation relation = client.observe(handler);
        server.expect().type(Type.CON).code(Code.GET).path("obs").observe(0).storeMid("reg").storeToken("t");
        server.ack(server.mid("reg")).response(Code.CONTENT).token(server.token("t")).observe(seq).maxAge(maxAge)
                .payload(payload).go();
        server.advance(ofMillis(1));
        return relation;
    }

    private void notifyNon(int mid, int seq, String payload) {
        notifyNon(mid, seq, payload, 600);
    }

    private void notifyNon(int mid, int seq, String payload, long maxAge) {
        server.non().response(Code.CONTENT).mid(mid).token(server.token("t")).observe(seq).maxAge(maxAge).payload(payload)
                .go();
        server.advance(ofMillis(1));
    }

    private void cancelProactively(CoapObserveRelation relation) {
        CompletableFuture<CoapResponse> answer = relation.proactiveCancel();
        server.expect().type(Type.CON).code(Code.GET).observe(1).token(server.token("t")).storeMid("c");
        server.ack(server.mid("c")).response(Code.CONTENT).token(server.token("t")).payload("last").go();
        server.advance(ofMillis(1));
        assertTrue(answer.isDone(), "deregistration answered");
        assertEquals("last", answer.join().payloadText());
        assertTrue(relation.isCanceled());
    }

    /**
     * Reordering (RFC 7641 §3.4), wrap-around and the 128-s rule.
     * <pre>
     *   |<-- ACK 2.05 Obs=0xFFFFF0 "a"  | delivered (registration)
     *   |<-- NON 2.05 Obs=0xFFFFEF "x"  | older: dropped
     *   |<-- NON 2.05 Obs=0xFFFFFF "b"  | delivered
     *   |<-- NON 2.05 Obs=2        "c"  | wrapped, newer: delivered
     *   |<-- NON 2.05 Obs=0xFFFFFE "y"  | V2-V1 > 2^23 with V1 &lt; V2: older: dropped
     *   |   (129 s pass)                 |
     *   |<-- NON 2.05 Obs=1        "d"  | older by number but 128 s apart: delivered
     * </pre>
     */
    @Test
    void reorderingWrapAroundAnd128SecondRule() {
        CoapObserveRelation relation = registerAnswered(0xFFFFF0, 600, "a");
        notifyNon(100, 0xFFFFEF, "x");
        notifyNon(101, 0xFFFFFF, "b");
        notifyNon(102, 2, "c");
        notifyNon(103, 0xFFFFFE, "y");
        server.advance(ofSeconds(129));
        notifyNon(104, 1, "d");
        assertEquals(List.of("a@" + 0xFFFFF0, "b@" + 0xFFFFFF, "c@2", "d@1"), loads, "fresh ones only, in order");
        assertEquals(2, relation.staleNotifications());
        assertEquals("d", relation.current().payloadText());
        assertEquals(List.of(), errors);
        cancelProactively(relation);
        notifyNon(105, 3, "late"); // the client forgot the token: RST (RFC 7641 §3.6)
        server.expect().type(Type.RST).mid(105);
        assertEquals(4, loads.size(), "nothing delivered after the cancel");
    }

    /**
     * Re-registration when Max-Age (5 s) + margin (2 s) pass without a notification (RFC 7641 §3.3.1):
     * a new GET Obs=0 with the same token, at 7 s.
     */
    @Test
    void reregistersWhenMaxAgeExpires() {
        CoapObserveRelation relation = registerAnswered(10, 5, "a");
        server.markTime();
        notifyNon(200, 11, "b", 5); // moves the deadline to 5 + 2 s after this one
        server.expectWithin(ofSeconds(8)).type(Type.CON).code(Code.GET).observe(0).token(server.token("t"))
                .between(ofMillis(7000), ofMillis(7100)).storeMid("rr");
        assertNotEquals(server.mid("reg"), server.mid("rr"), "a new message");
        server.ack(server.mid("rr")).response(Code.CONTENT).token(server.token("t")).observe(11).maxAge(5)
                .payload("b").go();
        server.advance(ofMillis(1));
        assertEquals(1, relation.reregistrations());
        assertEquals(List.of("a@10", "b@11", "b@11"), loads, "the re-registration answer is delivered too");
        notifyNon(201, 12, "c", 5);
        assertEquals("c", relation.current().payloadText());
        relation.reactiveCancel();
        notifyNon(202, 13, "d");
        server.expect().type(Type.RST).mid(202);
        assertFalse(loads.contains("d@13"));
        server.expectNothingFor(ofSeconds(30)); // no re-registration after the cancel
    }

    /** A registration nobody answers reports one CoapTimeoutException after the client's timeout. */
    @Test
    void unansweredRegistrationReportsAnError() {
        client.useNONs().timeout(ofSeconds(10));
        CoapObserveRelation relation = client.observe(handler);
        server.expect().type(Type.NON).code(Code.GET).observe(0);
        server.advance(ofSeconds(11));
        assertEquals(1, errors.size(), "one error");
        assertInstanceOf(CoapTimeoutException.class, errors.get(0));
        assertTrue(relation.isCanceled());
        server.expectNothingFor(ofSeconds(100));
    }

    /** An error answer ends the observation: onLoad gets it, nothing follows (RFC 7641 §3.2). */
    @Test
    void errorAnswerEndsTheObservation() {
        CoapObserveRelation relation = client.observe(handler);
        server.expect().type(Type.CON).code(Code.GET).observe(0).storeMid("reg").storeToken("t");
        server.ack(server.mid("reg")).response(Code.NOT_FOUND).token(server.token("t")).go();
        server.advance(ofMillis(1));
        assertEquals(List.of("@-1"), loads);
        assertTrue(relation.isCanceled());
        assertEquals(Code.NOT_FOUND, relation.current().code());
        server.expectNothingFor(ofSeconds(200));
    }

    /**
     * Observe + Block2 (RFC 7959 §2.6): the notification's first block arrives; the client
     * fetches the rest with GETs without Observe on a new token and delivers 40 bytes once.
     * <pre>
     *   |<-- ACK 2.05 Obs=3 2:0/1/16 ETag=e1 T=t   |  first block of the registration answer
     *   | CON GET /obs 2:1/0/16 T=f (no Observe) ->|
     *   |<-- ACK 2.05 2:1/1/16 ETag=e1             |
     *   | CON GET /obs 2:2/0/16 T=f -------------->|
     *   |<-- ACK 2.05 2:2/0/16 ETag=e1 (8 bytes)   |  → handler: 40 bytes, Obs=3
     * </pre>
     */
    @Test
    void observeWithBlock2DeliversTheWholeBody() {
        byte[] body = "0123456789abcdefghijklmnopqrstuvwxyzABCD".getBytes(StandardCharsets.US_ASCII);
        CoapObserveRelation relation = client.observe(handler);
        server.expect().type(Type.CON).code(Code.GET).observe(0).storeMid("reg").storeToken("t");
        server.ack(server.mid("reg")).response(Code.CONTENT).token(server.token("t")).observe(3).etag("e1")
                .block2(0, true, 0).payload(Arrays.copyOfRange(body, 0, 16)).go();
        for (int n = 1; n <= 2; n++) {
            server.expect().type(Type.CON).code(Code.GET).path("obs").noOption(OptionNumber.OBSERVE).block2(n, false, 0)
                    .storeMid("b").storeToken("f");
            assertNotEquals(server.token("t"), server.token("f"), "follow-ups use their own token");
            server.ack(server.mid("b")).response(Code.CONTENT).token(server.token("f")).etag("e1").block2(n, n < 2, 0)
                    .payload(Arrays.copyOfRange(body, n * 16, Math.min(body.length, n * 16 + 16))).go();
        }
        server.advance(ofMillis(1));
        assertEquals(List.of(new String(body, StandardCharsets.US_ASCII) + "@3"), loads, "one delivery, whole body");
        assertFalse(relation.current().options().has(OptionNumber.BLOCK2), "no block option left");
        cancelProactively(relation);
    }
}
