package io.stagecoach.examples.plugtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.testutil.Json;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.testing.Await;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/** The plugtest's message-layer resources (§3.1–3.4, 3.14–3.17) and /benchmark, /count, /fibonacci. */
class PlugtestCoreResourcesTest {

    private final PlugtestSim sim = new PlugtestSim();

    PlugtestCoreResourcesTest() throws Exception {
    }

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void testGetAnswersReqInfoWithTokenAndMaxAge30() {
        sim.verified(); // else the answer comes in blocks within the amplification limit
        CoapResponse r = sim.send("/test", Code.GET, b -> b.token(Token.fromHex("beef")));
        Response wire = r.advanced();
        String expected = "Type: 0 (CON)\nCode: 1 (GET)\nMID: " + wire.mid() + "\nToken: beef";
        assertEquals(Code.CONTENT, r.code(), "CON GET /test");
        assertEquals(Type.ACK, wire.type(), "piggybacked");
        assertEquals(expected.substring(0, Math.min(64, expected.length())), r.payloadText());
        assertEquals(ContentFormat.TEXT_PLAIN, r.contentFormat());
        assertEquals(30, r.options().maxAge());
    }

    @Test
    void testNonGetGetsANonAnswerWithReqInfoOfTheNon() {
        // (The client's token layer gives every request a token; the empty-token case is covered
        // by the interop tests, whose peers send zero-length tokens.)
        CoapResponse r = sim.send("/test", Code.GET, b -> b.type(Type.NON).token(Token.fromHex("01")));
        assertEquals(Type.NON, r.advanced().type(), "NON request, NON response");
        assertTrue(r.payloadText().startsWith("Type: 1 (NON)\nCode: 1 (GET)\nMID: "), r.payloadText());
        assertTrue(r.payloadText().endsWith("\nToken: 01"), r.payloadText());
    }

    @Test
    void testGetPayloadIsCutTo64Bytes() {
        sim.verified();
        // An 8-byte token makes REQINFO + token line 56..60 bytes + "MID: 65535": check the cap, not the exact cut.
        CoapResponse r = sim.send("/test", Code.GET, b -> b.token(Token.fromHex("0102030405060708")));
        assertTrue(r.payload().length <= TestResource.MAX_GET_PAYLOAD, r.payloadText());
        assertTrue(("Type: 0 (CON)\nCode: 1 (GET)\nMID: " + r.advanced().mid() + "\nToken: 0102030405060708")
                .startsWith(r.payloadText()), r.payloadText());
    }

    @Test
    void testPostPutDelete() {
        CoapResponse post = sim.call(sim.client("/test").postAsync("x", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CREATED, post.code());
        assertEquals(List.of("location1", "location2", "location3"), post.options().locationPath());
        assertEquals(0, post.payload().length);
        assertEquals(Code.CHANGED, sim.call(sim.client("/test").putAsync("x", ContentFormat.TEXT_PLAIN)).code());
        CoapResponse guarded = sim.send("/test", Code.PUT, b -> {
            b.options().ifNoneMatch(true);
            return b.payload("x");
        });
        assertEquals(Code.PRECONDITION_FAILED, guarded.code(), "PUT /test with If-None-Match");
        assertEquals(Code.DELETED, sim.call(sim.client("/test").deleteAsync()).code());
        assertEquals(Code.CONTENT, sim.call(sim.client("/test").getAsync()).code(), "still there after DELETE");
    }

    @Test
    void longPathsAnswerAtEveryLevel() {
        sim.verified(); // else the answer comes in blocks, and the last block's MID is not the one in it
        for (String path : List.of("/seg1", "/seg1/seg2", "/seg1/seg2/seg3")) {
            CoapResponse r = sim.call(sim.client(path).getAsync());
            assertEquals("Long path resource\nType: 0 (CON)\nCode: 1 (GET)\nMID: " + r.advanced().mid(),
                    r.payloadText(), path);
        }
    }

    @Test
    void queryEchoesEveryUriQueryInOrder() {
        CoapResponse r = sim.call(sim.client("/query?first=1&second=2&third=3").getAsync());
        assertEquals("Type: 0 (CON)\nCode: 1 (GET)\nMID: " + r.advanced().mid() + "\n?first=1&second=2&third=3",
                r.payloadText());
    }

    @Test
    void separateSendsAnEmptyAckThenAConResponseAboutOneSecondLater() {
        long start = sim.clock.nanoTime();
        CompletableFuture<CoapResponse> f = sim.client("/separate").getAsync();
        sim.clock.advance(Duration.ofMillis(100));
        assertEquals(1, sim.received.size(), "only the empty ACK after 100 ms: " + sim.received);
        EmptyMessage ack = assertInstanceOf(EmptyMessage.class, sim.received.get(0));
        assertEquals(Type.ACK, ack.type());
        assertTrue(!f.isDone(), "no response yet");

        CoapResponse r = sim.await(f, Duration.ofSeconds(3));
        Duration took = Duration.ofNanos(sim.clock.nanoTime() - start);
        assertEquals(Type.CON, r.advanced().type(), "separate response is CON");
        assertTrue(r.advanced().mid() != ack.mid(), "new MID for the separate response");
        assertEquals("Type: 0 (CON)\nCode: 1 (GET)\nMID: " + ack.mid() + "\n", r.payloadText());
        assertTrue(took.compareTo(Duration.ofMillis(1000)) >= 0 && took.compareTo(Duration.ofMillis(1100)) <= 0,
                "answered after " + took);
    }

    @Test
    void separateAnswersANonRequestWithANonResponseAndNoAck() {
        CoapResponse r = sim.send("/separate", Code.GET, b -> b.type(Type.NON));
        assertEquals(Type.NON, r.advanced().type());
        assertTrue(r.payloadText().startsWith("Type: 1 (NON)"), r.payloadText());
        assertTrue(sim.received.stream().noneMatch(m -> m instanceof EmptyMessage), "no ACK: " + sim.received);
    }

    @Test
    void locationQueryCarriesTwoLocationQueryOptions() {
        CoapResponse r = sim.call(sim.client("/location-query").postAsync("x", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CREATED, r.code());
        assertEquals(List.of("first=1", "second=2"), r.options().locationQuery());
    }

    @Test
    void multiFormatByAccept() throws Exception {
        CoapResponse text = sim.call(sim.client("/multi-format").getAsync());
        assertEquals(ContentFormat.TEXT_PLAIN, text.contentFormat());
        assertEquals("Status type: \"CON\"\nCode: \"GET\"\nMID: " + text.advanced().mid() + "\nAccept: none",
                text.payloadText());
        CoapResponse text0 = sim.call(sim.client("/multi-format").getAsync(ContentFormat.TEXT_PLAIN));
        assertTrue(text0.payloadText().endsWith("\nAccept: 0"), text0.payloadText());

        CoapResponse xml = sim.call(sim.client("/multi-format").getAsync(ContentFormat.XML));
        assertEquals(ContentFormat.XML, xml.contentFormat());
        Element msg = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.payload())).getDocumentElement();
        assertEquals("msg", msg.getTagName());
        assertEquals("CON", msg.getAttribute("type"));
        assertEquals("GET", msg.getAttribute("code"));
        assertEquals(Integer.toString(xml.advanced().mid()), msg.getAttribute("mid"));
        assertEquals("41", msg.getAttribute("accept"));

        CoapResponse json = sim.call(sim.client("/multi-format").getAsync(ContentFormat.JSON));
        assertEquals(ContentFormat.JSON, json.contentFormat());
        Map<?, ?> obj = (Map<?, ?>) Json.parse(json.payloadText());
        assertEquals(Map.of("type", "CON", "code", "GET", "mid", (long) json.advanced().mid(), "accept", 50L), obj);

        CoapResponse cbor = sim.call(sim.client("/multi-format").getAsync(ContentFormat.CBOR));
        assertEquals(ContentFormat.CBOR, cbor.contentFormat());
        int mid = cbor.advanced().mid();
        byte[] expected = concat(new byte[] {(byte) 0xA4, 0x64, 't', 'y', 'p', 'e', 0x63, 'C', 'O', 'N',
            0x64, 'c', 'o', 'd', 'e', 0x63, 'G', 'E', 'T', 0x63, 'm', 'i', 'd'},
                cborUint(mid), new byte[] {0x66, 'a', 'c', 'c', 'e', 'p', 't', 0x18, 60});
        assertArrayEquals(expected, cbor.payload(), "CBOR map {type, code, mid, accept}");

        assertEquals(Code.NOT_ACCEPTABLE, sim.call(sim.client("/multi-format").getAsync(ContentFormat.OCTET_STREAM)).code(), "Accept 42");
    }

    @Test
    void linksAndPathHierarchy() {
        assertEquals("/link2", sim.call(sim.client("/link2").getAsync()).payloadText());
        CoapResponse path = sim.call(sim.client("/path").getAsync());
        assertEquals(ContentFormat.LINK_FORMAT, path.contentFormat());
        assertEquals("</path/sub1>,</path/sub2>,</path/sub3>", path.payloadText());
        assertEquals("/path/sub3", sim.call(sim.client("/path/sub3").getAsync()).payloadText());
    }

    @Test
    void benchmarkGetIsPiggybackedHelloWorldAndPostEchoes() {
        CoapResponse get = sim.call(sim.client("/benchmark").getAsync());
        assertEquals(Type.ACK, get.advanced().type());
        assertEquals("hello world", get.payloadText());
        assertEquals(ContentFormat.TEXT_PLAIN, get.contentFormat());
        CoapResponse post = sim.call(sim.client("/benchmark").postAsync("echo me", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CHANGED, post.code());
        assertEquals("echo me", post.payloadText());
    }

    @Test
    void countCountsHandlerRuns() {
        assertEquals("1", sim.call(sim.client("/count").postAsync("", ContentFormat.TEXT_PLAIN)).payloadText());
        assertEquals("2", sim.call(sim.client("/count").postAsync("", ContentFormat.TEXT_PLAIN)).payloadText());
    }

    @Test
    void countIsNotRaisedByDuplicatedRequests() {
        // Every datagram from the client arrives twice: the server must answer the copy from its
        // deduplication store without running the handler again (RFC 7252 §4.5).
        sim.net.setConditions(new InetSocketAddress("10.0.0.2", 40000), sim.serverAddress,
                LinkConditions.builder().delay(PlugtestSim.ONE_WAY).duplicationProbability(1.0).build());
        assertEquals("1", sim.call(sim.client("/count").postAsync("", ContentFormat.TEXT_PLAIN)).payloadText());
        assertEquals("2", sim.call(sim.client("/count").postAsync("", ContentFormat.TEXT_PLAIN)).payloadText());
        assertEquals(2, sim.serverEndpoint.counters().get(EndpointCounters.Counter.DUPLICATES),
                "both duplicates seen: " + sim.serverEndpoint.counters());
    }

    @Test
    void fibonacciRunsOnItsOwnThreadAndRejectsBadInput() throws InterruptedException {
        CoapResponse r = fibonacci("20", 1);
        assertEquals(Code.CONTENT, r.code());
        assertEquals("6765", r.payloadText());
        assertEquals(Code.BAD_REQUEST, fibonacci("x", 2).code(), "n=x");
        assertEquals(Code.BAD_REQUEST, fibonacci("99", 3).code(), "n=99");
    }

    /**
     * The cap: n=46, one above it, is refused 4.00 without running fib(46) (minutes of CPU), as
     * are negative n, an n that overflows an int and a missing n.
     */
    @Test
    void fibonacciAnswers400AboveItsCap() throws InterruptedException {
        CoapResponse over = fibonacci(Integer.toString(BenchResources.MAX_FIBONACCI_N + 1), 1);
        assertEquals(Code.BAD_REQUEST, over.code());
        assertEquals("n must be 0.." + BenchResources.MAX_FIBONACCI_N + ", got 46", over.payloadText());
        assertEquals(Code.BAD_REQUEST, fibonacci("-1", 2).code(), "n=-1");
        assertEquals(Code.BAD_REQUEST, fibonacci("2147483648", 3).code(), "n over an int");
        assertEquals(Code.BAD_REQUEST, fibonacci("", 4).code(), "n empty");
        assertEquals(45, BenchResources.MAX_FIBONACCI_N, "docs/security.md names the cap");
    }

    /** GET /fibonacci?n=..; waits (bounded, real time) until its executor completed {@code tasks} tasks. */
    private CoapResponse fibonacci(String n, int tasks) throws InterruptedException {
        CompletableFuture<CoapResponse> f = sim.client("/fibonacci?n=" + n).getAsync();
        sim.clock.advance(PlugtestSim.ONE_WAY); // the request arrives and is handed to the executor
        ThreadPoolExecutor fib = sim.plugtest.fibonacciExecutor();
        // Real work on a real thread: wait for it (bounded), not for a timer.
        Await.until(() -> fib.getCompletedTaskCount() >= tasks, Duration.ofSeconds(10));
        assertEquals(tasks, fib.getCompletedTaskCount(), "the handler ran on /fibonacci's own executor");
        return sim.await(f, Duration.ofSeconds(1));
    }

    @Test
    void unknownPathIs404AndWrongMethodIs405() {
        assertEquals(Code.NOT_FOUND, sim.call(sim.client("/nothing").getAsync()).code());
        assertEquals(Code.METHOD_NOT_ALLOWED, sim.call(sim.client("/query").deleteAsync()).code());
    }

    static byte[] cborUint(int v) {
        if (v < 24) {
            return new byte[] {(byte) v};
        } else if (v < 256) {
            return new byte[] {0x18, (byte) v};
        }
        return new byte[] {0x19, (byte) (v >> 8), (byte) v};
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, off, p.length);
            off += p.length;
        }
        return out;
    }

    static String text(Message m) {
        return new String(m.payload(), StandardCharsets.UTF_8);
    }
}
