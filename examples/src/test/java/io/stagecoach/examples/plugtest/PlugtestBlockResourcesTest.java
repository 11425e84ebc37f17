package io.stagecoach.examples.plugtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.server.CoapResource;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The block-wise resources (§3.5–3.8) with the plugtest's 64-byte blocks. */
class PlugtestBlockResourcesTest {

    private final PlugtestSim sim = new PlugtestSim();

    PlugtestBlockResourcesTest() throws Exception {
    }

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void largeTextIsExactly1280BytesInTheDocumentsLayout() {
        String[] lines = PlugtestText.LARGE.split("\n", -1);
        assertEquals(1280, PlugtestText.LARGE.length());
        assertEquals(21, lines.length, "20 lines and the empty rest after the last newline");
        assertEquals("/" + "-".repeat(61) + "\\", lines[0]);
        assertEquals("|                 RESOURCE BLOCK NO. 3 OF 5                   |", lines[9]);
        assertEquals("|               [each line contains 64 bytes]                 |", lines[2]);
        assertEquals("\\" + "-".repeat(61) + "/", lines[19]);
        assertEquals("|                  Request BLOCK NO. 5 OF 5                   |", PlugtestText.LARGEREQ.split("\n")[17]);
        assertEquals(1280, PlugtestText.LARGEREQ.length());
    }

    /**
     * A client the server has not heard from (RFC 7252 §11.3, RFC 9175 §2.4): every block fits
     * three times the request that asked for it, so the first is smaller than 64 bytes (ETSI
     * TD_COAP_BLOCK_01: SZX at most the one asked for) and carries an Echo value; the client
     * returns it with its next request, and the next transfer goes in 64-byte blocks.
     */
    @Test
    void firstContactGetsBlocksWithinTheAmplificationLimitAndTheNextTransferFullOnes() {
        List<Request> requests = sim.sent;
        CoapResponse r = sim.call(sim.client("/large").getAsync());
        assertEquals(PlugtestText.LARGE, r.payloadText());
        List<Response> blocks = responsesWithBlock2();
        Response first = blocks.get(0);
        int size = first.options().block2().size();
        assertTrue(size < 64, "first block " + first);
        assertNotNull(first.options().echo(), "an Echo value to verify the address with: " + first);
        assertEquals(1280 / size, blocks.size(), "the whole body in blocks of " + size);
        assertTrue(blocks.stream().allMatch(b -> b.options().block2().size() == size), blocks::toString);
        assertArrayEquals(first.options().echo(), requests.get(1).options().echo(), "returned with the next request");
        for (int i = 0; i < blocks.size(); i++) {
            assertTrue(wireLength(blocks.get(i)) <= 3 * wireLength(requests.get(i)),
                    blocks.get(i) + " answers " + requests.get(i));
        }
        sim.received.clear();
        sim.call(sim.client("/large").getAsync());
        assertTrue(responsesWithBlock2().stream().allMatch(b -> b.options().block2().size() == 64),
                "verified: 64-byte blocks " + responsesWithBlock2());
    }

    private static int wireLength(Message m) {
        return new UdpMessageSerializer().serialize(m).length;
    }

    @Test
    void largeGetArrivesWholeIn20BlocksOf64Bytes() {
        sim.verified();
        CoapResponse r = sim.call(sim.client("/large").getAsync());
        assertEquals(Code.CONTENT, r.code());
        assertEquals(PlugtestText.LARGE, r.payloadText());
        List<Response> blocks = responsesWithBlock2();
        assertEquals(20, blocks.size(), "block responses: " + blocks);
        for (int i = 0; i < 20; i++) {
            BlockOption b2 = blocks.get(i).options().block2();
            assertEquals(i, b2.num());
            assertEquals(64, b2.size());
            assertEquals(i < 19, b2.more());
            assertEquals(0, blocks.get(i).options().contentFormat(), "Content-Format on every block");
        }
    }

    @Test
    void largeGetHonoursEarlyNegotiationOf16ByteBlocks() {
        CoapResponse r = sim.send("/large", Code.GET, b -> {
            b.options().block2(BlockOption.of(0, false, 0));
            return b;
        });
        assertEquals(PlugtestText.LARGE, r.payloadText());
        List<Response> blocks = responsesWithBlock2();
        assertEquals(80, blocks.size(), "1280 / 16 blocks");
        assertTrue(blocks.stream().allMatch(m -> m.options().block2().size() == 16));
    }

    @Test
    void largeUpdatePutIsAnswered231PerBlockThen204AndStored() {
        CoapResponse put = sim.call(sim.client("/large-update").putAsync(PlugtestText.LARGEREQ, ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CHANGED, put.code());
        long continues = sim.received.stream().filter(m -> m.code().equals(Code.CONTINUE)).count();
        assertEquals(19, continues, "2.31 for blocks 0..18 of 20");
        assertEquals(PlugtestText.LARGEREQ, sim.call(sim.client("/large-update").getAsync()).payloadText());
        assertEquals(Code.NOT_ACCEPTABLE, sim.call(sim.client("/large-update").getAsync(ContentFormat.JSON)).code(), "Accept 50 vs text");
        CoapResponse noFormat = sim.send("/large-update", Code.PUT, b -> b.payload("x"));
        assertEquals(Code.BAD_REQUEST, noFormat.code(), "PUT without Content-Format");
    }

    @Test
    void largeCreatePostMakesAChildWithLocationPath() {
        CoapResponse created = sim.call(sim.client("/large-create").postAsync(PlugtestText.LARGEREQ, ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CREATED, created.code());
        assertEquals(List.of("large-create", "1"), created.options().locationPath());
        assertEquals(PlugtestText.LARGEREQ, sim.call(sim.client("/large-create/1").getAsync()).payloadText());
        CoapResponse listing = sim.call(sim.client("/large-create").getAsync());
        assertEquals(ContentFormat.LINK_FORMAT, listing.contentFormat());
        assertEquals("</large-create/1>", listing.payloadText());
        assertEquals(Code.DELETED, sim.call(sim.client("/large-create/1").deleteAsync()).code());
        assertEquals(Code.NOT_FOUND, sim.call(sim.client("/large-create/1").getAsync()).code());
        CoapResponse noFormat = sim.send("/large-create", Code.POST, b -> b.payload("x"));
        assertEquals(Code.BAD_REQUEST, noFormat.code());
    }

    /**
     * At most 100 children: the 101st POST is answered 5.03 with Max-Age 60 and a diagnostic,
     * and keeps no body; after one DELETE the next POST is created again, under a new number.
     */
    @Test
    void largeCreateKeepsAtMostItsCapOfChildren() {
        for (int i = 1; i <= LargeCreateResource.MAX_CHILDREN; i++) {
            assertEquals(Code.CREATED, sim.call(sim.client("/large-create").postAsync("body " + i, ContentFormat.TEXT_PLAIN))
                    .code(), "child " + i);
        }
        CoapResponse full = sim.call(sim.client("/large-create").postAsync("one too many", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.SERVICE_UNAVAILABLE, full.code());
        assertEquals(LargeCreateResource.RETRY_AFTER_SECONDS, full.options().maxAge());
        assertEquals(LargeCreateResource.FULL, full.payloadText());
        assertEquals(LargeCreateResource.MAX_CHILDREN, largeCreate().children().size());
        assertEquals(Code.NOT_FOUND, sim.call(sim.client("/large-create/101").getAsync()).code(), "nothing kept");

        assertEquals(Code.DELETED, sim.call(sim.client("/large-create/7").deleteAsync()).code());
        CoapResponse again = sim.call(sim.client("/large-create").postAsync("room again", ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CREATED, again.code());
        assertEquals(List.of("large-create", "101"), again.options().locationPath(), "numbers are not reused");
        assertEquals(Code.SERVICE_UNAVAILABLE,
                sim.call(sim.client("/large-create").postAsync("full again", ContentFormat.TEXT_PLAIN)).code());
    }

    private CoapResource largeCreate() {
        return sim.plugtest.resources().stream().filter(r -> r.name().equals("large-create")).findFirst().orElseThrow();
    }

    @Test
    void largePostAnswersUpperCaseBothWaysBlockwise() {
        CoapResponse r = sim.call(sim.client("/large-post").postAsync(PlugtestText.LARGEREQ, ContentFormat.TEXT_PLAIN));
        assertEquals(Code.CHANGED, r.code());
        assertEquals(PlugtestText.LARGEREQ.toUpperCase(Locale.ROOT), r.payloadText());
        assertTrue(responsesWithBlock2().size() >= 20, "answer came block-wise: " + sim.received.size());
        assertEquals(Code.UNSUPPORTED_CONTENT_FORMAT, sim.call(sim.client("/large-post").postAsync("x", ContentFormat.JSON)).code());
    }

    private List<Response> responsesWithBlock2() {
        return sim.received.stream().filter(m -> m instanceof Response && m.options().block2() != null)
                .map(m -> (Response) m).toList();
    }

    static String describe(List<Message> messages) {
        return messages.toString();
    }
}
