package io.stagecoach.core.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
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
import io.stagecoach.core.test.lockstep.OutgoingMessage;
import io.stagecoach.core.test.lockstep.ReceivedDatagram;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server with the default amplification limit (3×, RFC 7252 §11.3) against spoofed requests: a
 * scripted peer plays the victim, whose address someone else wrote into requests it never sent
 * (docs/security.md, outcome 3). Every datagram the victim receives is at most three times the
 * request that drew it, and an Echo round trip (RFC 9175 §2.4) is what lifts the limit.
 */
class AmplificationTest {

    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    static final InetSocketAddress VICTIM = new InetSocketAddress("10.0.0.66", 5683);
    static final String LONG = "0123456789abcdef".repeat(40); // 640 bytes
    static final String DIAGNOSTIC = "no such sensor; try one of ".repeat(6);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 13);
    private final List<LockstepPeer> peers = new ArrayList<>();
    private final CoapResource observed = CoapResource.named("obs").setObservable(true)
            .onGet(ex -> ex.respond(Code.CONTENT, r -> r.payload(LONG.substring(0, 40))));
    private CoapServer server;
    private CoapEndpoint endpoint;

    @BeforeEach
    void start() {
        server = CoapServer.builder().connector(net.connector(SERVER)).scheduler(clock).protocolExecutor(Runnable::run)
                .build()
                .add(CoapResource.named("long").onGet(ex -> ex.respond(LONG)))
                .add(CoapResource.named("sensor").onGet(ex -> ex.respond(Code.NOT_FOUND, r -> r.payload(DIAGNOSTIC))))
                .add(CoapResource.named("slow").onGet(ex -> {
                    ex.accept();
                    clock.schedule(() -> ex.respond(LONG), Duration.ofSeconds(1));
                }))
                .add(observed)
                .start();
        endpoint = server.endpoints().get(0);
    }

    @AfterEach
    void tearDown() {
        peers.forEach(LockstepPeer::close);
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private LockstepPeer peer(InetSocketAddress address) {
        LockstepPeer p = LockstepPeer.attach(address.toString(), net, address, clock).defaultDestination(SERVER);
        peers.add(p);
        return p;
    }

    /** Sends {@code request} and returns its size on the wire. */
    private static int send(OutgoingMessage request) {
        int bytes = request.encode().length;
        request.go();
        return bytes;
    }

    /** Everything {@code victim} received within {@code time}, as datagrams. */
    private static List<ReceivedDatagram> drain(LockstepPeer victim, Duration time) {
        victim.advance(time);
        List<ReceivedDatagram> got = new ArrayList<>();
        while (victim.waiting() > 0) {
            got.add(victim.expectRaw());
        }
        return got;
    }

    @Test
    void aLargeAnswerToASpoofedGetIsAFirstBlockWithinThreeTimesTheRequest() {
        LockstepPeer victim = peer(VICTIM);
        // an 8-byte token: three times the request leaves room for the Echo option (10 bytes)
        int request = send(victim.con().get().path("long").mid(1).token("0102030405060708"));
        List<ReceivedDatagram> got = drain(victim, Duration.ofMinutes(5));
        assertEquals(1, got.size(), "one datagram, and nothing more while the victim keeps silent: " + got);
        Response first = (Response) got.get(0).message();
        assertTrue(got.get(0).bytes().length <= 3 * request, got.get(0).bytes().length + " bytes for " + request);
        assertEquals(Code.CONTENT, first.code());
        assertTrue(first.options().block2().more() && first.options().block2().size() < 1024, first.toString());
        assertNotNull(first.options().echo(), "an Echo value to prove the address with");
        assertEquals(1, endpoint.counters().get(Counter.AMPLIFICATION_LIMITED), "counted once");
    }

    @Test
    void anAnswerThatCannotBeSlicedBecomesA401EchoChallengeAndTheEchoLiftsTheLimit() {
        LockstepPeer client = peer(new InetSocketAddress("10.0.0.7", 40000));
        int request = send(client.con().get().path("sensor").mid(1).token("0a"));
        Message challenge = client.expect().type(Type.ACK).mid(1).code(Code.UNAUTHORIZED)
                .hasOption(OptionNumber.ECHO).message();
        assertTrue(client.consumed().get(0).bytes().length <= 3 * request);
        byte[] echo = challenge.options().echo();

        client.con().get().path("sensor").mid(2).token("0b").option(OptionNumber.ECHO, echo).go();
        client.expect().type(Type.ACK).mid(2).code(Code.NOT_FOUND).payload(DIAGNOSTIC);
        client.con().get().path("long").mid(3).token("0c").go();
        Response whole = (Response) client.expect().mid(3).code(Code.CONTENT).message();
        assertEquals(LONG, whole.payloadString(), "verified: no limit any more, no block-wise either (640 < 1024)");
    }

    @Test
    void anEchoProvesOnlyTheAddressItWasIssuedToAndOnlyWhileFresh() {
        LockstepPeer owner = peer(new InetSocketAddress("10.0.0.7", 40000));
        send(owner.con().get().path("sensor").mid(1).token("0a"));
        byte[] echo = owner.expect().mid(1).code(Code.UNAUTHORIZED).message().options().echo();

        LockstepPeer thief = peer(VICTIM); // a spoofer who saw the value replays it from the victim's address
        thief.con().get().path("sensor").mid(1).token("0a").option(OptionNumber.ECHO, echo).go();
        thief.expect().mid(1).code(Code.UNAUTHORIZED);

        owner.advance(CoapConfig.ECHO_LIFETIME.defaultValue().plusSeconds(2));
        owner.con().get().path("sensor").mid(2).token("0b").option(OptionNumber.ECHO, echo).go();
        owner.expect().mid(2).code(Code.UNAUTHORIZED).matches(m -> !Arrays.equals(echo, m.options().echo()),
                "a fresh Echo value");
    }

    @Test
    void ourClientAnswersTheChallengeAndTheApplicationSeesTheRealAnswer() throws Exception {
        CoapEndpoint clientEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.8", 40000)))
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(3)).build();
        clientEndpoint.start();
        try {
            CoapClient client = new CoapClient("coap://10.0.0.1:5683/sensor", clientEndpoint);
            var answer = client.getAsync();
            clock.advance(Duration.ofSeconds(1));
            CoapResponse r = answer.join();
            assertEquals(Code.NOT_FOUND, r.code(), "the 4.01 Echo challenge was answered, not handed up");
            assertEquals(DIAGNOSTIC, r.payloadText());

            var large = new CoapClient("coap://10.0.0.1:5683/long", clientEndpoint).getAsync();
            clock.advance(Duration.ofSeconds(1));
            assertEquals(LONG, large.join().payloadText(), "verified by the Echo round trip: one answer");
        } finally {
            clientEndpoint.destroy();
        }
    }

    @Test
    void aSpoofedObserveRegistrationDrawsNoMoreThanTheLimitAndEndsWithoutTheVictim() {
        LockstepPeer victim = peer(VICTIM);
        int request = send(victim.con().get().path("obs").observe(0).mid(1).token("0d"));
        for (int i = 0; i < 20; i++) {
            observed.changed();
            victim.advance(Duration.ofSeconds(1));
        }
        List<ReceivedDatagram> got = drain(victim, Duration.ofMinutes(5));
        int total = got.stream().mapToInt(d -> d.bytes().length).sum();
        assertTrue(total <= 3 * request, total + " bytes in " + got.size() + " datagrams for a " + request
                + "-byte registration: " + got);
        assertEquals(0, observed.observerCount(), "the relation ended: the victim never acknowledged");
    }

    @Test
    void anObserverThatAcknowledgesIsVerifiedAndNotifiedInFull() {
        LockstepPeer client = peer(new InetSocketAddress("10.0.0.7", 40000));
        client.con().get().path("obs").observe(0).mid(1).token("0d").go();
        client.expect().emptyAck(1);
        client.expect().type(Type.CON).code(Code.CONTENT).hasOption(OptionNumber.OBSERVE).token("0d").storeMid("r");
        client.ack(client.mid("r")).go();
        observed.changed();
        client.expect().code(Code.CONTENT).token("0d").payload(LONG.substring(0, 40)).storeMid("n");
        client.ack(client.mid("n")).go(); // CON or NON, an ACK for a NON is ignored
        client.con().get().path("obs").observe(1).mid(2).token("0d").go();
        client.expect().mid(2).code(Code.CONTENT).noOption(OptionNumber.OBSERVE);
    }

    @Test
    void aSeparateResponseToASpoofedSourceStaysWithinTheLimit() {
        LockstepPeer victim = peer(VICTIM);
        int request = send(victim.con().get().path("slow").mid(1).token("0e"));
        List<ReceivedDatagram> got = drain(victim, Duration.ofMinutes(5));
        int total = got.stream().mapToInt(d -> d.bytes().length).sum();
        assertTrue(total <= 3 * request, total + " bytes in " + got.size() + " datagrams for " + request + ": " + got);
        assertEquals(0, endpoint.openExchanges(), "the exchange ended");
    }

    @Test
    void blocksKeepTheirSizeOnceTheEchoCameBack() {
        LockstepPeer client = peer(new InetSocketAddress("10.0.0.7", 40000));
        client.con().get().path("long").mid(1).token("0102030405060708").go();
        Response first = (Response) client.expect().mid(1).code(Code.CONTENT).message();
        int szx = first.options().block2().szx();
        client.con().get().path("long").mid(2).token("02").block2(1, false, szx)
                .option(OptionNumber.ECHO, first.options().echo()).go();
        client.expect().mid(2).code(Code.CONTENT).block2(1, true, szx);
        client.con().get().path("long").mid(3).token("03").go();
        Response again = (Response) client.expect().mid(3).code(Code.CONTENT).message();
        assertEquals(LONG, again.payloadString(), "the next transfer: verified, the whole 640 bytes at once");
        assertArrayEquals(LONG.getBytes(), again.payload());
    }
}
