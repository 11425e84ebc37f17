package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.testutil.TestVectors;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Limits a hostile peer cannot exceed ({@link RequestLimits}) and the rate-limited ban log
 * ({@link BanLog}), over the in-memory network on the virtual clock. Each test says what the peer
 * sent, what came back and which line was logged.
 */
class RequestLimitsTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 40001);
    private static final InetSocketAddress OTHER = new InetSocketAddress("10.0.0.10", 40001);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 5);
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();
    private final ArrayDeque<byte[]> received = new ArrayDeque<>();
    private final AtomicInteger handled = new AtomicInteger();
    private final ListAppender<ILoggingEvent> banLines = new ListAppender<>();
    private CoapEndpoint server;
    private SimulatedConnector peer;
    private SimulatedConnector other;

    @BeforeEach
    void attachAppender() {
        banLines.start();
        ((Logger) LoggerFactory.getLogger(BanLog.LOGGER)).addAppender(banLines);
    }

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger(BanLog.LOGGER)).detachAppender(banLines);
        if (server != null) {
            assertEquals(0, server.openExchanges());
            server.destroy();
            peer.destroy();
            other.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private void start(Consumer<Configuration.Builder> edit) throws Exception {
        Configuration.Builder b = CoapConfig.builder();
        edit.accept(b);
        server = CoapEndpoint.builder().connector(net.connector(SERVER)).config(b.build()).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(3)).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                handled.incrementAndGet();
                server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("ok").build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        server.start();
        peer = net.connector(PEER);
        peer.setRawDataReceiver(raw -> received.add(raw.bytes()));
        peer.start();
        other = net.connector(OTHER);
        other.setRawDataReceiver(raw -> received.add(raw.bytes()));
        other.start();
    }

    private void send(SimulatedConnector from, byte[] bytes) {
        from.send(RawData.outbound(bytes, EndpointContext.of(SERVER), null));
        clock.advance(Duration.ZERO);
        clock.advance(Duration.ZERO);
    }

    private Message next() throws Exception {
        byte[] b = received.poll();
        if (b == null) {
            throw new AssertionError("nothing came back; counters " + server.counters());
        }
        return new UdpMessageParser().parse(b);
    }

    private static Request.Builder get(Type type, int mid) {
        return Request.get().type(type).mid(mid).token(Token.fromHex("0a"));
    }

    private List<String> lines() {
        return banLines.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    /** CON GET /x with 65 Uri-Query options (limit 64) → ACK 4.00 "65 options, more than 64". */
    @Test
    void tooManyOptionsIsBadRequest() throws Exception {
        start(b -> { });
        Request.Builder r = get(Type.CON, 1);
        r.options().uriPath("x");
        for (int i = 0; i < 64; i++) {
            r.options().addUriQuery("q" + i);
        }
        send(peer, serializer.serialize(r.build()));
        Message m = next();
        assertEquals(Type.ACK, m.type());
        assertEquals(Code.BAD_REQUEST, m.code());
        assertEquals("65 options, more than 64", m.payloadString());
        assertEquals(0, handled.get(), "the handler never saw it");
        assertEquals(1, server.counters().get(Counter.LIMIT_EXCEEDED));
        assertEquals(0, server.dedupEntries(), "refused before deduplication: no state kept");
        assertEquals(List.of("CoAP limit exceeded from 10.0.0.9:40001: 65 options, more than 64"), lines());
    }

    /** Exactly at the limit (64 options) the request is served. */
    @Test
    void optionsAtTheLimitAreServed() throws Exception {
        start(b -> { });
        Request.Builder r = get(Type.CON, 1);
        r.options().uriPath("x");
        for (int i = 0; i < 63; i++) {
            r.options().addUriQuery("q" + i);
        }
        send(peer, serializer.serialize(r.build()));
        assertEquals(Code.CONTENT, next().code());
        assertEquals(0, server.counters().get(Counter.LIMIT_EXCEEDED));
    }

    /** Option bytes limited to 100: two 60-byte Uri-Query values → 4.00 "120 bytes of options". */
    @Test
    void tooManyOptionBytesIsBadRequest() throws Exception {
        start(b -> b.set(CoapConfig.LIMIT_MAX_OPTION_BYTES, 100));
        Request.Builder r = get(Type.CON, 2);
        r.options().addUriQuery("a".repeat(60)).addUriQuery("b".repeat(60));
        send(peer, serializer.serialize(r.build()));
        Message m = next();
        assertEquals(Code.BAD_REQUEST, m.code());
        assertEquals("120 bytes of options, more than 100", m.payloadString());
    }

    /** 17 Uri-Path segments (limit 16) → 4.04; 16 segments reach the handler. */
    @Test
    void deepPathIsNotFound() throws Exception {
        start(b -> { });
        Request.Builder deep = get(Type.CON, 3);
        deep.options().uriPath("a/".repeat(16) + "z");
        send(peer, serializer.serialize(deep.build()));
        Message m = next();
        assertEquals(Code.NOT_FOUND, m.code());
        assertEquals("17 Uri-Path segments, more than 16", m.payloadString());
        Request.Builder ok = get(Type.CON, 4);
        ok.options().uriPath("a/".repeat(15) + "z");
        send(peer, serializer.serialize(ok.build()));
        assertEquals(Code.CONTENT, next().code());
        assertEquals(1, handled.get());
    }

    /** A NON over a limit is dropped: nothing comes back, it is counted and logged. */
    @Test
    void nonOverLimitIsDroppedAndCounted() throws Exception {
        start(b -> b.set(CoapConfig.LIMIT_MAX_OPTIONS, 2));
        Request.Builder r = get(Type.NON, 5);
        r.options().uriPath("a/b/c");
        send(peer, serializer.serialize(r.build()));
        assertTrue(received.isEmpty(), "nothing answers a NON over a limit");
        assertEquals(1, server.counters().get(Counter.LIMIT_EXCEEDED));
        assertEquals(1, lines().size());
    }

    /**
     * Malformed CON (TKL 9) from 10.0.0.9 three times within a minute: one line. 10.0.0.10 gets its
     * own line. After the minute, the next one logs again and says how many were held back.
     */
    @Test
    void malformedIsLoggedOncePerPeerPerMinute() throws Exception {
        start(b -> { });
        byte[] tkl9 = TestVectors.hex("49011234" + "000000000000000000");
        send(peer, tkl9);
        clock.advance(Duration.ofSeconds(30));
        send(peer, tkl9);
        clock.advance(Duration.ofSeconds(29));
        send(peer, tkl9);
        send(other, tkl9);
        assertEquals(List.of("malformed CoAP from 10.0.0.9:40001: TKL 9 is reserved (RFC 7252 3)",
                "malformed CoAP from 10.0.0.10:40001: TKL 9 is reserved (RFC 7252 3)"), lines());
        clock.advance(Duration.ofSeconds(1)); // 60 s after the first line
        send(peer, tkl9);
        assertEquals("malformed CoAP from 10.0.0.9:40001: TKL 9 is reserved (RFC 7252 3) (2 more since)",
                lines().get(2));
        assertEquals(5, server.counters().get(Counter.MALFORMED), "every one is counted, logged or not");
    }

    /** Datagrams that parse but break the message rules log as malformed too: an Empty NON (5000 1234). */
    @Test
    void emptyNonIsLoggedAsMalformed() throws Exception {
        start(b -> { });
        send(peer, TestVectors.hex("50001234"));
        assertTrue(received.isEmpty(), "an Empty NON is dropped");
        assertEquals(List.of("malformed CoAP from 10.0.0.9:40001: Empty NON message (RFC 7252 4.1)"), lines());
    }

    /** The two kinds of line are limited separately: a limit line follows a malformed line at once. */
    @Test
    void limitAndMalformedLinesAreLimitedSeparately() throws Exception {
        start(b -> b.set(CoapConfig.LIMIT_MAX_OPTIONS, 1));
        send(peer, TestVectors.hex("49011234" + "000000000000000000"));
        Request.Builder r = get(Type.CON, 6);
        r.options().uriPath("a/b");
        send(peer, serializer.serialize(r.build()));
        assertEquals(2, lines().size(), String.join("\n", lines()));
        assertTrue(lines().get(1).startsWith("CoAP limit exceeded from 10.0.0.9:40001: 2 options"));
    }

    /** The limiter remembers at most its capacity of addresses; the least recently seen is forgotten. */
    @Test
    void rateLimiterIsBoundedLru() throws Exception {
        PeerRateLimiter limiter = new PeerRateLimiter(clock, Duration.ofMinutes(1), 2);
        java.net.InetAddress a = java.net.InetAddress.getByName("10.0.0.1");
        java.net.InetAddress b = java.net.InetAddress.getByName("10.0.0.2");
        java.net.InetAddress c = java.net.InetAddress.getByName("10.0.0.3");
        assertEquals(0, limiter.tryAcquire(a));
        assertEquals(0, limiter.tryAcquire(b));
        assertEquals(-1, limiter.tryAcquire(a), "a again within the minute");
        assertEquals(0, limiter.tryAcquire(c), "c pushes out b, the least recently seen");
        assertEquals(2, limiter.size());
        assertEquals(0, limiter.tryAcquire(b), "b was forgotten, so it is let through again");
        assertEquals(-1, limiter.tryAcquire(b));
    }

    @Test
    void ipv6PeersAreBracketed() {
        assertEquals("[fd00:0:0:0:0:0:0:1]:5683", BanLog.format(new InetSocketAddress("fd00::1", 5683)));
        assertEquals("10.0.0.9:40001", BanLog.format(PEER));
    }
}
