package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.testutil.TestVectors;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server side of RFC 7252 §4–§5 driven message by message by a scripted peer over the
 * in-memory network, on the virtual clock. Each test names what the peer sent and what came back.
 */
class ServerProtocolTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final InetSocketAddress peerAddress = new InetSocketAddress("10.0.0.9", 40001);
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();
    private final UdpMessageParser parser = new UdpMessageParser();
    private final ArrayDeque<byte[]> received = new ArrayDeque<>();
    private final AtomicInteger handled = new AtomicInteger();
    private SimulatedConnector peer;
    private CoapEndpoint server;

    private void start(Configuration config, BiConsumer<Exchange, Request> handler, CoapEndpointBuilder extra)
            throws Exception {
        CoapEndpointBuilder b = extra != null ? extra : CoapEndpoint.builder();
        server = b.connector(net.connector(serverAddress)).config(config).scheduler(clock).executor(Runnable::run)
                .random(new SplittableRandom(3)).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                handled.incrementAndGet();
                handler.accept(exchange, request);
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        server.start();
        peer = net.connector(peerAddress);
        peer.setRawDataReceiver(raw -> received.add(raw.bytes()));
        peer.start();
    }

    private void startHello() throws Exception {
        start(config(b -> { }), (ex, req) -> server.respond(ex,
                Response.forRequest(req, Code.CONTENT).payload("hello").build()), null);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            assertEquals(0, server.openExchanges(), "exchanges left in the store");
            server.destroy();
            peer.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static Configuration config(java.util.function.Consumer<Configuration.Builder> edit) {
        Configuration.Builder b = CoapConfig.builder();
        edit.accept(b);
        return b.build();
    }

    private void send(Message m) {
        send(serializer.serialize(m));
    }

    private void send(byte[] bytes) {
        peer.send(RawData.outbound(bytes, io.stagecoach.elements.EndpointContext.of(serverAddress), null));
        clock.advance(Duration.ZERO);
        clock.advance(Duration.ZERO);
    }

    private Message next() throws MessageFormatException {
        byte[] b = received.poll();
        if (b == null) {
            throw new AssertionError("nothing received; server counters " + server.counters());
        }
        return parser.parse(b);
    }

    private static Request get(Type type, int mid, String token, String path) {
        Request.Builder b = Request.get().type(type).mid(mid).token(Token.fromHex(token));
        b.options().uriPath(path);
        return b.build();
    }

    /**
     * <pre>
     * peer                       server
     *  | CON 0.00 MID=0x7d34 ------>|   ping (RFC 7252 §4.3)
     *  |<------ RST MID=0x7d34      |
     * </pre>
     */
    @Test
    void pingIsAnsweredWithRst() throws Exception {
        startHello();
        send(EmptyMessage.ping(0x7d34));
        Message m = next();
        assertEquals(Type.RST, m.type());
        assertEquals(0x7d34, m.mid());
        assertEquals(0, handled.get());
    }

    /**
     * <pre>
     *  | CON GET /x MID=0x1234 T=0a ->|
     *  |<- ACK 2.05 MID=0x1234 T=0a "hello"
     *  | CON GET /x MID=0x1234 T=0a ->|   duplicate (§4.5)
     *  |<- the same bytes again       |   handler not run again
     * </pre>
     */
    @Test
    void duplicateConIsAnsweredFromTheStoreWithoutRunningTheHandlerAgain() throws Exception {
        start(config(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)),
                (ex, req) -> server.respond(ex, Response.forRequest(req, Code.CHANGED).payload("n=" + handled.get())
                        .build()), null);
        Request post = Request.post().type(Type.CON).mid(0x1234).token(Token.fromHex("0a")).payload("x").build();
        send(post);
        byte[] first = serializer.serialize(next());
        send(post);
        byte[] second = serializer.serialize(next());
        assertEquals(TestVectors.hex(first), TestVectors.hex(second));
        assertEquals(1, handled.get());
        assertEquals(1, server.counters().get(Counter.DUPLICATES));
    }

    @Test
    void piggybackedAndNonResponses() throws Exception {
        startHello();
        send(get(Type.CON, 0x1234, "0a", "x"));
        Message ack = next();
        assertEquals(Type.ACK, ack.type());
        assertEquals(0x1234, ack.mid());
        assertEquals("0a", ack.token().toString().toLowerCase().replace("0x", ""));
        assertEquals("hello", ack.payloadString());

        send(get(Type.NON, 0x2000, "0b", "x"));
        Message non = next();
        assertEquals(Type.NON, non.type(), "a NON request gets a NON response (§5.2.3)");
        assertEquals(Code.CONTENT, non.code());
    }

    /**
     * <pre>
     *  | CON GET /slow MID=1 T=01 ->|
     *  |<- ACK (empty) MID=1         |   after SEPARATE_ACK_DELAY
     *  |<- CON 2.05 MID=m T=01       |   separate response, then retransmitted after ~2-3 s
     *  |<- CON 2.05 MID=m T=01       |
     *  | ACK MID=m ---------------->|   stops the retransmission
     * </pre>
     */
    @Test
    void separateResponseIsRetransmittedUntilAcked() throws Exception {
        List<Exchange> pending = new ArrayList<>();
        start(config(b -> { }), (ex, req) -> pending.add(ex), null);
        send(get(Type.CON, 1, "01", "slow"));
        assertTrue(received.isEmpty(), "nothing before the separate-ACK delay");
        clock.advance(Duration.ofMillis(200));
        Message emptyAck = next();
        assertEquals(Type.ACK, emptyAck.type());
        assertEquals(Code.EMPTY, emptyAck.code());
        assertEquals(1, emptyAck.mid());

        server.respond(pending.get(0), Response.forRequest(pending.get(0).request(), Code.CONTENT).payload("late")
                .build());
        clock.advance(Duration.ZERO);
        Message separate = next();
        assertEquals(Type.CON, separate.type());
        assertEquals("late", separate.payloadString());
        clock.advance(Duration.ofSeconds(3));
        Message again = next();
        assertEquals(separate.mid(), again.mid(), "retransmission keeps the MID");
        send(EmptyMessage.of(Type.ACK, separate.mid()));
        clock.advance(Duration.ofSeconds(60));
        assertTrue(received.isEmpty(), "no retransmission after the ACK");
        assertEquals(1, server.counters().get(Counter.RETRANSMISSIONS));
    }

    /** CON GET with option 9 (critical, not processed here) → ACK 4.02 Bad Option (§5.4.1). */
    @Test
    void unrecognizedCriticalOptionGets402() throws Exception {
        startHello();
        Request.Builder b = Request.get().type(Type.CON).mid(0x2000).token(Token.fromHex("05"));
        b.options().add(Option.of(OptionNumber.OSCORE, new byte[0]));
        send(b.build());
        Message m = next();
        assertEquals(Type.ACK, m.type());
        assertEquals(Code.BAD_OPTION, m.code());
        assertEquals(0, handled.get());

        Request.Builder unknown = Request.get().type(Type.CON).mid(0x2001);
        unknown.options().add(Option.of(2049, new byte[] {1}));
        send(unknown.build());
        assertEquals(Code.BAD_OPTION, next().code(), "unknown odd option 2049");
    }

    /**
     * CON GET with Uri-Host twice (critical, not repeatable) → ACK 4.02: the supernumerary
     * occurrence is treated like an unrecognized option (RFC 7252 §5.4.5); Max-Age twice
     * (elective) is ignored and the request served.
     */
    @Test
    void repeatedNonRepeatableCriticalOptionGets402ElectiveIsIgnored() throws Exception {
        startHello();
        // the builders refuse a second Uri-Host, so the datagram is written by hand:
        // CON GET MID 0x2100 token 06, Uri-Host "a.example", Uri-Host "b.example"
        java.io.ByteArrayOutputStream d = new java.io.ByteArrayOutputStream();
        d.writeBytes(new byte[] {0x41, 0x01, 0x21, 0x00, 0x06, 0x39});
        d.writeBytes("a.example".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        d.write(0x09);
        d.writeBytes("b.example".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        send(d.toByteArray());
        Message m = next();
        assertEquals(Type.ACK, m.type());
        assertEquals(0x2100, m.mid());
        assertEquals(Code.BAD_OPTION, m.code());
        assertEquals(0, handled.get());

        // CON GET MID 0x2101 token 07, Max-Age 1, Max-Age 2
        send(new byte[] {0x41, 0x01, 0x21, 0x01, 0x07, (byte) 0xD1, 0x01, 0x01, 0x01, 0x02});
        assertEquals(Code.CONTENT, next().code(), "Max-Age twice is elective: ignored");
    }

    /** Every malformed shared vector sent as CON is answered with RST (or 4.00) carrying its MID. */
    @Test
    void malformedVectorsGetRstOrBadRequest() throws Exception {
        startHello();
        for (Map<String, Object> v : TestVectors.section("malformed")) {
            byte[] bytes = TestVectors.hex((String) v.get("hex"));
            send(bytes);
            if (bytes.length < 4 || (bytes[0] & 0x30) != 0) {
                assertTrue(received.isEmpty(), v.get("name") + ": a non-CON or header-less message is dropped");
                continue;
            }
            Message answer = next();
            int mid = ((bytes[2] & 0xFF) << 8) | (bytes[3] & 0xFF);
            assertEquals(mid, answer.mid(), (String) v.get("name"));
            assertTrue(answer.type() == Type.RST || answer.code() == Code.BAD_REQUEST, v.get("name") + " -> " + answer);
        }
        assertEquals(0, handled.get());
        send(TestVectors.hex("80011234"));
        assertTrue(received.isEmpty(), "version 2 is dropped silently");
        assertEquals(1, server.counters().get(Counter.IGNORED_VERSION));
    }

    /** With room for one remembered message, a second new CON gets 5.03 with Max-Age (never an OOM). */
    @Test
    void fullDeduplicationStoreEvictsTheHeaviestSourcesOldestEntry() throws Exception {
        start(config(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)
                .set(CoapConfig.DEDUP_MAX_ENTRIES, 1)),
                (ex, req) -> server.respond(ex, Response.forRequest(req, Code.CHANGED).build()), null);
        send(Request.post().type(Type.CON).mid(1).build());
        assertEquals(Code.CHANGED, next().code());
        send(Request.post().type(Type.CON).mid(2).build());
        assertEquals(Code.CHANGED, next().code(), "taken: the store made room");
        assertEquals(0, server.counters().get(Counter.REJECTED_OVERLOAD));
        send(Request.post().type(Type.CON).mid(1).build());
        assertEquals(Code.CHANGED, next().code());
        assertEquals(3, handled.get(), "MID 1's entry was evicted: its copy was processed again");
    }

    @Test
    void perSourceDeduplicationCapAnswers503() throws Exception {
        start(config(b -> b.set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT)
                .set(CoapConfig.DEDUP_MAX_ENTRIES_PER_SOURCE, 1)),
                (ex, req) -> server.respond(ex, Response.forRequest(req, Code.CHANGED).build()), null);
        send(Request.post().type(Type.CON).mid(1).build());
        assertEquals(Code.CHANGED, next().code());
        send(Request.post().type(Type.CON).mid(2).build());
        Message m = next();
        assertEquals(Code.SERVICE_UNAVAILABLE, m.code());
        assertEquals(2, m.options().maxAge());
        assertEquals(1, server.counters().get(Counter.REJECTED_OVERLOAD));
    }

    /** An expert's layer inserted above "token" stamps every response with option 65000. */
    @Test
    void customLayerStampsResponses() throws Exception {
        CoapEndpointBuilder b = CoapEndpoint.builder().layers(s -> s.addAbove(LayerStack.TOKEN, "stamp",
                new AbstractLayer() {
                    @Override
                    public void sendResponse(LayerContext ctx, Exchange exchange, Response response) {
                        Response.Builder stamped = response.newBuilder();
                        stamped.options().add(Option.of(65000, new byte[] {42}));
                        ctx.sendResponse(exchange, stamped.build());
                    }
                }));
        start(config(c -> { }), (ex, req) -> server.respond(ex, Response.forRequest(req, Code.CONTENT).build()), b);
        assertEquals(List.of("exchange-cleanup", "observe", "blockwise", "echo", "stamp", "token", "reliability"),
                server.layerNames());
        send(get(Type.CON, 7, "07", "x"));
        Message m = next();
        assertEquals(42, m.options().get(65000).get(0).value()[0]);
    }
}
