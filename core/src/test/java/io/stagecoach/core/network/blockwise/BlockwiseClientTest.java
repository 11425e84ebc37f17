package io.stagecoach.core.network.blockwise;

import static io.stagecoach.core.network.blockwise.BlockwiseFixture.body;
import static io.stagecoach.core.network.blockwise.BlockwiseFixture.slice;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client side of RFC 7959 against a scripted server, on the virtual clock. */
class BlockwiseClientTest {

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 13);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private final List<Object> outcomes = new ArrayList<>();
    private CoapEndpoint client;
    private LockstepPeer server;

    private void start(Configuration config) throws Exception {
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .config(config).scheduler(clock).executor(Runnable::run).random(new SplittableRandom(4)).build();
        client.start();
        server = LockstepPeer.attach("server", net, serverAddress, clock).defaultDestination(client.address());
    }

    @AfterEach
    void stop() {
        server.expectNothing();
        assertEquals(0, client.openExchanges(), "exchanges left");
        assertEquals(0, client.blockwiseTransfers(), "block-wise state left");
        client.destroy();
        server.close();
    }

    private void send(Request.Builder request) {
        client.sendRequest(request.peer(EndpointContext.of(serverAddress)).build(), new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
                outcomes.add(response);
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                outcomes.add(cause);
            }
        });
    }

    private Response onlyResponse() {
        clock.advance(Duration.ZERO);
        assertEquals(1, outcomes.size(), "one outcome: " + outcomes);
        return assertInstanceOf(Response.class, outcomes.get(0));
    }

    private static Request.Builder request(Request.Builder b, String path, Consumer<Request.Builder> more) {
        b.options().uriPath(path);
        more.accept(b);
        return b;
    }

    /**
     * Transparent Block1 upload of 200 bytes in 64-byte blocks, one exchange, one token.
     * <pre>
     * client                                   server (scripted)
     *   | CON PUT /r 1:0/1/64 Size1=200 -------->|
     *   |<------------------ ACK 2.31 1:0/1/64   |
     *   | CON PUT /r 1:1/1/64 (same token) ----->|
     *   |<------------------ ACK 2.31 1:1/1/64   |
     *   | CON PUT /r 1:2/1/64 ------------------>|
     *   |<------------------ ACK 2.31 1:2/1/64   |
     *   | CON PUT /r 1:3/0/64 (8 bytes) -------->|
     *   |<------------------ ACK 2.04 1:3/0/64   |  listener: one 2.04, no Block1
     * </pre>
     */
    @Test
    void uploadsBlock1WithContinue() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] upload = body(200);
        send(request(Request.put().payload(upload), "r", b -> { }));
        for (int n = 0; n < 4; n++) {
            boolean more = n < 3;
            var e = server.expect().type(Type.CON).code(Code.PUT).path("r").block1(n, more, 2)
                    .payload(slice(upload, n * 64, n * 64 + 64)).storeMid("m" + n);
            if (n == 0) {
                e.optionUint(OptionNumber.SIZE1, 200).storeToken("t");
            } else {
                e.sameToken("t").noOption(OptionNumber.SIZE1);
            }
            var ack = server.ack(server.mid("m" + n)).response(more ? Code.CONTINUE : Code.CHANGED)
                    .token(server.token("t")).block1(n, more, 2);
            ack.go();
            clock.advance(Duration.ZERO);
            assertEquals(more ? 0 : 1, outcomes.size(), "delivered only after the last block");
        }
        Response r = onlyResponse();
        assertEquals(Code.CHANGED, r.code());
        assertFalse(r.options().has(OptionNumber.BLOCK1), "the listener sees the plain answer");
    }

    /**
     * The server lowers the block size in its 2.31 (§2.5): the client continues at the same byte
     * offset in the smaller size.
     * <pre>
     *   | CON PUT /r 1:0/1/64 ------------------>|
     *   |<------------------ ACK 2.31 1:0/1/16   |
     *   | CON PUT /r 1:4/1/16 ------------------>|  bytes 64..79
     * </pre>
     */
    @Test
    void continuesInTheSmallerSizeTheServerAsks() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] upload = body(90);
        send(request(Request.put().payload(upload), "r", b -> { }));
        server.expect().block1(0, true, 2).storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.CONTINUE).token(server.token("t")).block1(0, true, 0).go();
        server.expect().block1(4, true, 0).payload(slice(upload, 64, 80)).storeMid("m");
        server.ack(server.mid("m")).response(Code.CONTINUE).token(server.token("t")).block1(4, true, 0).go();
        server.expect().block1(5, false, 0).payload(slice(upload, 80, 90)).storeMid("m");
        server.ack(server.mid("m")).response(Code.CHANGED).token(server.token("t")).block1(5, false, 0).go();
        assertEquals(Code.CHANGED, onlyResponse().code());
    }

    /**
     * 4.13 with a smaller Block1 SZX restarts the upload from block 0 in that size; 4.13 with only
     * a Size1 larger than a block reaches the application.
     * <pre>
     *   | CON POST /r 1:0/1/64 ----------------->|
     *   |<------------------ ACK 4.13 1:0/0/32   |
     *   | CON POST /r 1:0/1/32 ----------------->|  restart, new MID, same token
     *   |<------------------ ACK 4.13 Size1=1000 |  the body is too large: give up
     * </pre>
     */
    @Test
    void tooLargeRetriesWithSmallerBlocksThenGivesUp() throws Exception {
        start(BlockwiseFixture.blocks(64));
        send(request(Request.post().payload(body(2000)), "r", b -> { }));
        server.expect().block1(0, true, 2).storeMid("m1").storeToken("t");
        server.ack(server.mid("m1")).response(Code.REQUEST_ENTITY_TOO_LARGE).token(server.token("t"))
                .block1(0, false, 1).go();
        server.expect().block1(0, true, 1).payload(slice(body(2000), 0, 32)).sameToken("t").storeMid("m2");
        assertTrue(server.mid("m2") != server.mid("m1"), "a new MID for the restart");
        server.ack(server.mid("m2")).response(Code.REQUEST_ENTITY_TOO_LARGE).token(server.token("t")).size1(1000).go();
        Response r = onlyResponse();
        assertEquals(Code.REQUEST_ENTITY_TOO_LARGE, r.code());
        assertEquals(1000, r.options().size1(), "the application learns the server's limit");
    }

    /**
     * A plain request answered 4.13 with Size1 smaller than its payload (the server's message
     * limit) is sent again block-wise.
     * <pre>
     *   | CON PUT /r (600 bytes, no Block1) ----->|
     *   |<------------------ ACK 4.13 Size1=256  |
     *   | CON PUT /r 1:0/1/256 Size1=600 ------->|
     * </pre>
     */
    @Test
    void plainRequestRetriedAsBlocksAfter413() throws Exception {
        start(BlockwiseFixture.config().build());
        byte[] upload = body(600);
        send(request(Request.put().payload(upload), "r", b -> { }));
        server.expect().noOption(OptionNumber.BLOCK1).payloadLength(600).storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.REQUEST_ENTITY_TOO_LARGE).token(server.token("t")).size1(256).go();
        for (int n = 0; n < 3; n++) {
            boolean more = n < 2;
            server.expect().block1(n, more, 4).payload(slice(upload, n * 256, n * 256 + 256)).storeMid("m");
            server.ack(server.mid("m")).response(more ? Code.CONTINUE : Code.CHANGED).token(server.token("t"))
                    .block1(n, more, 4).go();
        }
        assertEquals(Code.CHANGED, onlyResponse().code());
    }

    /**
     * Transparent Block2 download: the follow-ups carry the same token, the SZX the server chose,
     * and no payload; the listener gets one response with the whole body and no block options.
     * <pre>
     *   | CON GET /big ------------------------->|
     *   |<------------ ACK 2.05 2:0/1/32 ETag=1  |
     *   | CON GET /big 2:1/0/32 ---------------->|
     *   |<------------ ACK 2.05 2:1/1/32 ETag=1  |
     *   | CON GET /big 2:2/0/32 ---------------->|
     *   |<------------ ACK 2.05 2:2/0/32 ETag=1  |  listener: 70 bytes
     * </pre>
     */
    @Test
    void downloadsBlock2AndDeliversOnce() throws Exception {
        start(BlockwiseFixture.config().build());
        byte[] big = body(70);
        send(request(Request.get(), "big", b -> { }));
        server.expect().noOption(OptionNumber.BLOCK2).storeMid("m").storeToken("t");
        for (int n = 0; n < 3; n++) {
            boolean more = n < 2;
            server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(n, more, 1)
                    .etag("01").contentFormat(ContentFormat.TEXT_PLAIN).payload(slice(big, n * 32, n * 32 + 32)).go();
            if (more) {
                server.expect().type(Type.CON).code(Code.GET).path("big").sameToken("t").block2(n + 1, false, 1)
                        .noPayload().storeMid("m");
            }
        }
        Response r = onlyResponse();
        assertArrayEquals(big, r.payload());
        assertFalse(r.options().has(OptionNumber.BLOCK2));
        assertEquals(0, r.options().contentFormat());
    }

    /**
     * Early negotiation by the application: a Block2 option on the request asks for 16-byte
     * blocks; the client keeps the size the server answers with.
     */
    @Test
    void earlyNegotiationFromTheApplication() throws Exception {
        start(BlockwiseFixture.config().build());
        send(request(Request.get(), "big", b -> b.options().block2(BlockOption.of(0, false, 0))));
        server.expect().block2(0, false, 0).storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(0, true, 0)
                .payload(body(16)).go();
        server.expect().block2(1, false, 0).storeMid("m");
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(1, false, 0)
                .payload(slice(body(20), 16, 20)).go();
        assertArrayEquals(body(20), onlyResponse().payload());
    }

    /** An ETag that changes between blocks fails the exchange: the blocks are of two representations. */
    @Test
    void changedEtagFailsTheTransfer() throws Exception {
        start(BlockwiseFixture.config().build());
        send(request(Request.get(), "big", b -> { }));
        server.expect().storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(0, true, 0).etag("01")
                .payload(body(16)).go();
        server.expect().block2(1, false, 0).storeMid("m");
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(1, false, 0).etag("02")
                .payload(body(4)).go();
        clock.advance(Duration.ZERO);
        ExchangeFailedException e = assertInstanceOf(ExchangeFailedException.class, outcomes.get(0));
        assertTrue(e.getMessage().contains("ETag"), e.getMessage());
    }

    /** A download beyond BLOCKWISE_MAX_RESOURCE_BODY_SIZE (announced by Size2) fails at once. */
    @Test
    void announcedSize2OverTheLimitFails() throws Exception {
        start(BlockwiseFixture.config().build());
        send(request(Request.get(), "big", b -> { }));
        server.expect().storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.CONTENT).token(server.token("t")).block2(0, true, 0).size2(9000)
                .payload(body(16)).go();
        clock.advance(Duration.ZERO);
        assertInstanceOf(ExchangeFailedException.class, outcomes.get(0));
    }

    /**
     * Two-way POST (§3.3): after the upload the answer's Block2 is fetched with the same POST,
     * Block2 and no payload.
     * <pre>
     *   | CON POST /p 1:0/1/16 ----------------->|
     *   |<------------------ ACK 2.31 1:0/1/16   |
     *   | CON POST /p 1:1/0/16 ----------------->|
     *   |<------------ ACK 2.04 1:1/0/16 2:0/1/16|
     *   | CON POST /p 2:1/0/16 ----------------->|  no payload, no Block1
     *   |<------------ ACK 2.04 2:1/0/16         |
     * </pre>
     */
    @Test
    void twoWayPost() throws Exception {
        start(BlockwiseFixture.blocks(16));
        byte[] upload = body(20);
        send(request(Request.post().payload(upload), "p", b -> { }));
        server.expect().block1(0, true, 0).storeMid("m").storeToken("t");
        server.ack(server.mid("m")).response(Code.CONTINUE).token(server.token("t")).block1(0, true, 0).go();
        server.expect().block1(1, false, 0).payload(slice(upload, 16, 20)).storeMid("m");
        server.ack(server.mid("m")).response(Code.CHANGED).token(server.token("t")).block1(1, false, 0)
                .block2(0, true, 0).payload(body(16)).go();
        server.expect().code(Code.POST).block2(1, false, 0).noOption(OptionNumber.BLOCK1).noPayload().storeMid("m");
        server.ack(server.mid("m")).response(Code.CHANGED).token(server.token("t")).block2(1, false, 0)
                .payload(slice(body(30), 16, 30)).go();
        Response r = onlyResponse();
        assertEquals(Code.CHANGED, r.code());
        assertArrayEquals(body(30), r.payload());
    }
}
