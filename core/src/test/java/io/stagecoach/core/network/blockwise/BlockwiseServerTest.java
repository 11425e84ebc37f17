package io.stagecoach.core.network.blockwise;

import static io.stagecoach.core.network.blockwise.BlockwiseFixture.body;
import static io.stagecoach.core.network.blockwise.BlockwiseFixture.slice;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server side of RFC 7959 against a scripted client, on the virtual clock. Diagrams use the
 * RFC's notation: {@code 2:n/m/size} is Block2 NUM n, M m, block size; {@code 1:...} is Block1.
 */
class BlockwiseServerTest {

    private static final byte[] ETAG = {(byte) 0xE1};

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 11);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint server;
    private BlockwiseFixture.Resources resources;
    private LockstepPeer client;

    private void start(Configuration config) throws Exception {
        server = CoapEndpoint.builder().connector(net.connector(serverAddress)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(3)).build();
        resources = new BlockwiseFixture.Resources(server);
        server.setMessageDeliverer(resources);
        server.start();
        client = LockstepPeer.attach("client", net, new InetSocketAddress("10.0.0.2", 40000), clock)
                .defaultDestination(serverAddress);
    }

    @AfterEach
    void stop() {
        client.expectNothing();
        assertEquals(0, server.openExchanges(), "exchanges left");
        assertEquals(0, server.blockwiseTransfers(), "block-wise state left");
        server.destroy();
        client.close();
    }

    /**
     * Transparent Block2 with the plugtest's B = 16, 64 and 512 bytes, 1280-byte resource.
     * <pre>
     * client                                  server
     *   | CON GET /large ------------------------>|
     *   |<--------- ACK 2.05 2:0/1/B ETag CF=0    |  B bytes
     *   | CON GET /large 2:1/0/B ---------------->|
     *   |<--------- ACK 2.05 2:1/1/B ETag CF=0    |
     *   :                                         :
     *   |<--------- ACK 2.05 2:n/0/B ETag CF=0    |  the rest
     * </pre>
     */
    @ParameterizedTest
    @ValueSource(ints = {16, 64, 512})
    void block2GetAtPreferredSize(int size) throws Exception {
        start(BlockwiseFixture.blocks(size));
        int szx = Integer.numberOfTrailingZeros(size) - 4;
        byte[] large = resources.large;
        int blocks = (large.length + size - 1) / size;
        for (int n = 0; n < blocks; n++) {
            var get = client.con().get().mid(100 + n).token("b2").path("large");
            if (n > 0) {
                get.block2(n, false, szx);
            }
            get.go();
            boolean more = n < blocks - 1;
            client.expect().type(Type.ACK).code(Code.CONTENT).mid(100 + n).token("b2").block2(n, more, szx)
                    .contentFormat(ContentFormat.TEXT_PLAIN).option(OptionNumber.ETAG, ETAG).noOption(OptionNumber.SIZE2)
                    .payload(slice(large, n * size, (n + 1) * size));
        }
        assertEquals(1, resources.getsOf("large"), "the handler ran once; blocks 1.. came from the cache");
    }

    /**
     * Early negotiation (§2.4): the client asks 16-byte blocks in its first request.
     * <pre>
     *   | CON GET /large 2:0/0/16 --------------->|
     *   |<---------------- ACK 2.05 2:0/1/16      |  16 bytes although B = 512
     * </pre>
     */
    @Test
    void earlyNegotiationHonoursSmallerSzx() throws Exception {
        start(BlockwiseFixture.config().build());
        client.con().get().mid(1).token("e0").path("large").block2(0, false, 0).go();
        client.expect().type(Type.ACK).code(Code.CONTENT).block2(0, true, 0).payload(slice(resources.large, 0, 16));
        client.con().get().mid(2).token("e1").path("large").block2(1, false, 0).go();
        client.expect().code(Code.CONTENT).token("e1").block2(1, true, 0).payload(slice(resources.large, 16, 32));
        expire();
    }

    /**
     * Late negotiation (§2.4): after block 0 of 64 bytes the client asks for 16-byte blocks; the
     * server continues at byte 64 in the smaller size (NUM 4). A larger SZX than the server's is
     * answered in the server's size at the asked offset.
     * <pre>
     *   | CON GET /large ------------------------>|
     *   |<---------------- ACK 2.05 2:0/1/64      |  bytes 0..63
     *   | CON GET /large 2:4/0/16 --------------->|
     *   |<---------------- ACK 2.05 2:4/1/16      |  bytes 64..79
     *   | CON GET /large 2:1/0/128 -------------->|  offset 128, larger than B
     *   |<---------------- ACK 2.05 2:2/1/64      |  bytes 128..191
     * </pre>
     */
    @Test
    void lateNegotiationContinuesAtTheSameOffset() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] large = resources.large;
        client.con().get().mid(1).token("10").path("large").go();
        client.expect().block2(0, true, 2).payload(slice(large, 0, 64));
        client.con().get().mid(2).token("10").path("large").block2(4, false, 0).go();
        client.expect().block2(4, true, 0).payload(slice(large, 64, 80));
        client.con().get().mid(3).token("10").path("large").block2(1, false, 3).go();
        client.expect().block2(2, true, 2).payload(slice(large, 128, 192));
        assertEquals(1, resources.getsOf("large"));
        expire();
    }

    /**
     * Random access: a fresh request for block 3 runs the handler and caches the representation;
     * block 1 then comes from the cache; the last block ends the cache entry. Past the end: 4.02.
     * <pre>
     *   | CON GET /large 2:3/0/64 --------------->|  handler runs
     *   |<---------------- ACK 2.05 2:3/1/64      |
     *   | CON GET /large 2:1/0/64 --------------->|  from the cache
     *   |<---------------- ACK 2.05 2:1/1/64      |
     *   | CON GET /large 2:19/0/64 -------------->|
     *   |<---------------- ACK 2.05 2:19/0/64     |  last block: entry dropped
     *   | CON GET /large 2:20/0/64 -------------->|  handler runs again
     *   |<---------------- ACK 4.02               |  past the end
     * </pre>
     */
    @Test
    void randomAccessFromCacheOrHandler() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] large = resources.large;
        client.con().get().mid(1).token("0b").path("large").block2(3, false, 2).go();
        client.expect().block2(3, true, 2).payload(slice(large, 192, 256));
        assertEquals(1, server.blockwiseTransfers(), "one cached representation");
        client.con().get().mid(2).token("0b").path("large").block2(1, false, 2).go();
        client.expect().block2(1, true, 2).payload(slice(large, 64, 128)).option(OptionNumber.ETAG, ETAG);
        assertEquals(1, resources.getsOf("large"));
        client.con().get().mid(3).token("0b").path("large").block2(19, false, 2).go();
        client.expect().block2(19, false, 2).payload(slice(large, 1216, 1280));
        assertEquals(0, server.blockwiseTransfers(), "the last block dropped the cache entry");
        client.con().get().mid(4).token("0b").path("large").block2(20, false, 2).go();
        client.expect().type(Type.ACK).code(Code.BAD_OPTION).noOption(OptionNumber.BLOCK2);
        assertEquals(2, resources.getsOf("large"));
    }

    /**
     * Size2 (§4): a request with Size2=0 gets the whole size in each block.
     * <pre>
     *   | CON GET /large Size2=0 ---------------->|
     *   |<----------- ACK 2.05 2:0/1/512 Size2=1280
     * </pre>
     */
    @Test
    void size2WhenAsked() throws Exception {
        start(BlockwiseFixture.blocks(512));
        client.con().get().mid(1).token("05").path("large").size2(0).go();
        client.expect().block2(0, true, 5).optionUint(OptionNumber.SIZE2, 1280);
        client.con().get().mid(2).token("05").path("large").block2(1, false, 5).size2(0).go();
        client.expect().block2(1, true, 5).optionUint(OptionNumber.SIZE2, 1280);
        expire();
    }

    /** A response that fits in one message is sent as it is: no Block2 (B = 1024, 1024 bytes). */
    @Test
    void smallResponseIsNotSliced() throws Exception {
        start(BlockwiseFixture.config().build());
        client.con().get().mid(1).token("0d").path("data").query("n=1024").go();
        client.expect().code(Code.CONTENT).noOption(OptionNumber.BLOCK2).payloadLength(1024);
        client.con().get().mid(2).token("0d").path("data").query("n=1025").go();
        client.expect().code(Code.CONTENT).block2(0, true, 5).contentFormat(ContentFormat.OCTET_STREAM).payloadLength(512);
        expire();
    }

    /**
     * Block1 PUT (§2.5): 2.31 per block with the Block1 echo; the handler sees one request.
     * <pre>
     *   | CON PUT /store 1:0/1/64 Size1=200 ----->|
     *   |<------------ ACK 2.31 1:0/1/64          |
     *   | CON PUT /store 1:1/1/64 --------------->|
     *   |<------------ ACK 2.31 1:1/1/64          |
     *   | CON PUT /store 1:2/1/64 --------------->|
     *   |<------------ ACK 2.31 1:2/1/64          |
     *   | CON PUT /store 1:3/0/64 (8 bytes) ----->|  handler: 200 bytes
     *   |<------------ ACK 2.04 1:3/0/64          |
     * </pre>
     */
    @Test
    void block1PutWithContinuePerBlock() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] upload = body(200);
        for (int n = 0; n < 4; n++) {
            boolean more = n < 3;
            var put = client.con().put().mid(10 + n).token("a" + n).path("store").block1(n, more, 2)
                    .payload(slice(upload, n * 64, n * 64 + 64));
            if (n == 0) {
                put.size1(200);
            }
            put.go();
            if (more) {
                client.expect().type(Type.ACK).code(Code.CONTINUE).mid(10 + n).token("a" + n).block1(n, true, 2);
                assertEquals(0, resources.seen.size(), "no request delivered before the last block");
            } else {
                client.expect().type(Type.ACK).code(Code.CHANGED).mid(13).block1(3, false, 2).noOption(OptionNumber.BLOCK2);
            }
        }
        assertEquals(1, resources.seen.size());
        Request whole = resources.seen.get(0);
        assertArrayEquals(upload, whole.payload());
        assertEquals(false, whole.options().has(OptionNumber.BLOCK1), "the handler sees no Block1");
    }

    /** A block re-sent after its 2.31 was lost (new MID) is acknowledged again, not appended twice. */
    @Test
    void resentBlockIsContinuedAgain() throws Exception {
        start(BlockwiseFixture.blocks(16));
        byte[] upload = body(40);
        client.con().put().mid(1).token("0a").path("store").block1(0, true, 0).payload(slice(upload, 0, 16)).go();
        client.expect().code(Code.CONTINUE).block1(0, true, 0);
        client.con().put().mid(2).token("0a").path("store").block1(0, true, 0).payload(slice(upload, 0, 16)).go();
        client.expect().code(Code.CONTINUE).block1(0, true, 0);
        client.con().put().mid(3).token("0a").path("store").block1(1, true, 0).payload(slice(upload, 16, 32)).go();
        client.expect().code(Code.CONTINUE).block1(1, true, 0);
        client.con().put().mid(4).token("0a").path("store").block1(1, true, 0).payload(slice(upload, 16, 32)).go();
        client.expect().code(Code.CONTINUE).block1(1, true, 0);
        client.con().put().mid(5).token("0a").path("store").block1(2, false, 0).payload(slice(upload, 32, 40)).go();
        client.expect().code(Code.CHANGED).block1(2, false, 0);
        assertArrayEquals(upload, resources.seen.get(0).payload());
    }

    /**
     * 4.13 (§2.9.3): Size1 announcing more than the maximum body size is refused at once; a body
     * growing past it is refused at the block that crosses it. Both carry Size1 = the maximum.
     * <pre>
     *   | CON PUT /store 1:0/1/1024 Size1=9000 -->|
     *   |<---------------- ACK 4.13 Size1=8192    |
     *   | CON PUT /store 1:0/1/1024 ------------->|  ... blocks 0..7 answered 2.31
     *   | CON PUT /store 1:8/1/1024 ------------->|  8193rd byte
     *   |<---------------- ACK 4.13 Size1=8192    |
     * </pre>
     */
    @Test
    void tooLargeWithSize1() throws Exception {
        start(BlockwiseFixture.config().build());
        byte[] block = body(1024);
        client.con().put().mid(1).token("07").path("store").block1(0, true, 6).size1(9000).payload(block).go();
        client.expect().type(Type.ACK).code(Code.REQUEST_ENTITY_TOO_LARGE).optionUint(OptionNumber.SIZE1, 8192);
        for (int n = 0; n < 8; n++) {
            client.con().put().mid(10 + n).token("07").path("store").block1(n, true, 6).payload(block).go();
            client.expect().code(Code.CONTINUE).block1(n, true, 6);
        }
        client.con().put().mid(20).token("07").path("store").block1(8, true, 6).payload(block).go();
        client.expect().code(Code.REQUEST_ENTITY_TOO_LARGE).optionUint(OptionNumber.SIZE1, 8192);
        assertEquals(0, server.blockwiseTransfers(), "the refused upload left no state");
        assertEquals(0, resources.seen.size());
        assertEquals(2, server.counters().get(io.stagecoach.core.network.EndpointCounters.Counter.LIMIT_EXCEEDED),
                "Size1 over the limit and the 8193rd byte are both counted");
    }

    /**
     * 4.08 (§2.9.2): a missing block ends the upload; a block with no upload in progress too.
     * <pre>
     *   | CON POST /echo 1:0/1/16 --------------->|
     *   |<---------------- ACK 2.31 1:0/1/16      |
     *   | CON POST /echo 1:2/1/16 --------------->|  block 1 missing
     *   |<---------------- ACK 4.08               |
     *   | CON POST /echo 1:3/0/16 --------------->|  nothing in progress any more
     *   |<---------------- ACK 4.08               |
     * </pre>
     */
    @Test
    void missingBlockIsIncomplete() throws Exception {
        start(BlockwiseFixture.blocks(16));
        byte[] b = body(16);
        client.con().post().mid(1).token("0c").path("echo").block1(0, true, 0).payload(b).go();
        client.expect().code(Code.CONTINUE).block1(0, true, 0);
        client.con().post().mid(2).token("0c").path("echo").block1(2, true, 0).payload(b).go();
        client.expect().type(Type.ACK).code(Code.REQUEST_ENTITY_INCOMPLETE).contentFormat(ContentFormat.TEXT_PLAIN);
        client.con().post().mid(3).token("0c").path("echo").block1(3, false, 0).payload(slice(b, 0, 4)).go();
        client.expect().code(Code.REQUEST_ENTITY_INCOMPLETE);
        assertEquals(0, resources.seen.size());
    }

    /** An upload idle longer than BLOCKWISE_STATUS_LIFETIME is swept; its next block draws 4.08. */
    @Test
    void idleUploadExpires() throws Exception {
        start(BlockwiseFixture.blocks(16).newBuilder().set(CoapConfig.BLOCKWISE_STATUS_LIFETIME, Duration.ofSeconds(30))
                .build());
        client.con().put().mid(1).token("0e").path("store").block1(0, true, 0).payload(body(16)).go();
        client.expect().code(Code.CONTINUE);
        assertEquals(1, server.blockwiseTransfers());
        clock.advance(Duration.ofSeconds(29));
        assertEquals(1, server.blockwiseTransfers(), "still within its lifetime");
        clock.advance(Duration.ofSeconds(12));
        assertEquals(0, server.blockwiseTransfers(), "swept after its lifetime");
        client.con().put().mid(2).token("0e").path("store").block1(1, false, 0).payload(body(3)).go();
        client.expect().code(Code.REQUEST_ENTITY_INCOMPLETE);
    }

    /** Past BLOCKWISE_MAX_TRANSFERS_PER_SOURCE, a new upload evicts the source's least recently used one. */
    @Test
    void perSourceCapEvictsTheSourcesOldestTransfer() throws Exception {
        start(BlockwiseFixture.blocks(16).newBuilder().set(CoapConfig.BLOCKWISE_MAX_TRANSFERS_PER_SOURCE, 2).build());
        for (int i = 0; i < 2; i++) {
            client.con().put().mid(1 + i).token("0c").path("store" + i).block1(0, true, 0).payload(body(16)).go();
            client.expect().code(Code.CONTINUE);
        }
        client.con().put().mid(3).token("0c").path("store2").block1(0, true, 0).payload(body(16)).go();
        client.expect().code(Code.CONTINUE); // a third upload is taken: the source's oldest is evicted
        assertEquals(2, server.blockwiseTransfers());
        client.con().put().mid(4).token("0c").path("store0").block1(1, true, 0).payload(body(16)).go();
        client.expect().code(Code.REQUEST_ENTITY_INCOMPLETE); // store0's upload was the one evicted
        client.con().put().mid(5).token("0c").path("store1").block1(1, true, 0).payload(body(16)).go();
        client.expect().code(Code.CONTINUE);
        expire();
    }

    /**
     * Two-way POST (§3.3): Block1 upload, then the large answer as Block2 on the last upload
     * block, fetched with the same POST carrying Block2 and no payload.
     * <pre>
     *   | CON POST /upper 1:0/1/64 -------------->|
     *   |<---------------- ACK 2.31 1:0/1/64      |
     *   | CON POST /upper 1:1/0/64 -------------->|  handler: 100 bytes -> 100 bytes upper case
     *   |<---------- ACK 2.04 1:1/0/64 2:0/1/64   |
     *   | CON POST /upper 2:1/0/64 -------------->|
     *   |<---------- ACK 2.04 2:1/0/64            |
     * </pre>
     */
    @Test
    void twoWayPost() throws Exception {
        start(BlockwiseFixture.blocks(64));
        byte[] upload = "abcdefghij".repeat(10).getBytes(StandardCharsets.US_ASCII);
        byte[] upper = new String(upload, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT)
                .getBytes(StandardCharsets.US_ASCII);
        client.con().post().mid(1).token("0f").path("upper").contentFormat(ContentFormat.TEXT_PLAIN).block1(0, true, 2)
                .payload(slice(upload, 0, 64)).go();
        client.expect().code(Code.CONTINUE).block1(0, true, 2);
        client.con().post().mid(2).token("0f").path("upper").contentFormat(ContentFormat.TEXT_PLAIN).block1(1, false, 2)
                .payload(slice(upload, 64, 100)).go();
        client.expect().type(Type.ACK).code(Code.CHANGED).block1(1, false, 2).block2(0, true, 2).contentFormat(ContentFormat.TEXT_PLAIN)
                .payload(slice(upper, 0, 64));
        client.con().post().mid(3).token("0f").path("upper").block2(1, false, 2).go();
        client.expect().code(Code.CHANGED).block2(1, false, 2).noOption(OptionNumber.BLOCK1)
                .payload(slice(upper, 64, 100));
        assertEquals(1, resources.seen.size(), "the handler ran once for the whole exchange");
    }

    /** Lets the server forget whatever a script left unfinished (lifetime 5 min, sweep 10 s). */
    private void expire() {
        clock.advance(Duration.ofMinutes(6));
    }
}
