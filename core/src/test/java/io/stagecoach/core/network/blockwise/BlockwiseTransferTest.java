package io.stagecoach.core.network.blockwise;

import static io.stagecoach.core.network.blockwise.BlockwiseFixture.body;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whole transfers between a client endpoint and a server endpoint over a link that loses 10 % of
 * the datagrams in each direction and reorders 10 % (up to 500 ms late), compared byte for byte.
 *
 * <p>With 10 % loss each way a request/response round trip fails 19 % of the time; with the default
 * MAX_RETRANSMIT 4 one block in 3,000 would exhaust its retransmissions, and a 100 000-byte
 * transfer has 196 blocks. MAX_RETRANSMIT is therefore 10 here: the test is about reassembly under
 * loss and reordering, not about giving up.
 */
class BlockwiseTransferTest {

    private static final int MAX_BODY = 200_000;

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 21);
    private final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    private CoapEndpoint server;
    private CoapEndpoint client;
    private BlockwiseFixture.Resources resources;

    @BeforeEach
    void start() throws Exception {
        Configuration config = BlockwiseFixture.config().set(CoapConfig.BLOCKWISE_MAX_RESOURCE_BODY_SIZE, MAX_BODY)
                .set(CoapConfig.MAX_RETRANSMIT, 10).build();
        net.setDefaultConditions(LinkConditions.builder().lossProbability(0.10)
                .reordering(0.10, Duration.ofMillis(500)).delay(Duration.ofMillis(5)).build());
        server = CoapEndpoint.builder().connector(net.connector(serverAddress)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(31)).build();
        resources = new BlockwiseFixture.Resources(server);
        server.setMessageDeliverer(resources);
        client = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .config(config).scheduler(clock).executor(Runnable::run).random(new SplittableRandom(32)).build();
        server.start();
        client.start();
    }

    @AfterEach
    void stop() {
        assertEquals(0, client.openExchanges(), "client exchanges left");
        assertEquals(0, server.openExchanges(), "server exchanges left");
        assertEquals(0, client.blockwiseTransfers(), "client block-wise state left");
        assertEquals(0, server.blockwiseTransfers(), "server block-wise state left");
        client.destroy();
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private Response exchange(Request.Builder request) {
        List<Object> outcomes = new ArrayList<>();
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
        for (int i = 0; i < 100_000 && outcomes.isEmpty(); i++) {
            clock.advance(Duration.ofMillis(100));
        }
        // late duplicates and reordered datagrams still in flight settle before the state checks
        clock.advance(Duration.ofSeconds(5));
        assertEquals(1, outcomes.size(), "exactly one outcome: " + outcomes);
        return assertInstanceOf(Response.class, outcomes.get(0));
    }

    /** Client to server: PUT of n bytes; the server's handler sees exactly those bytes, once. */
    @ParameterizedTest(name = "upload {0} bytes")
    @ValueSource(ints = {0, 1, 1023, 1024, 1025, 100_000})
    void upload(int n) {
        byte[] sent = body(n);
        Request.Builder put = Request.put().payload(sent);
        put.options().uriPath("store");
        Response r = exchange(put);
        assertEquals(Code.CHANGED, r.code());
        assertEquals(1, resources.seen.size(), "one request delivered for the whole upload");
        assertArrayEquals(sent, resources.seen.get(0).payload(), "server received the body byte for byte");
        assertLossHappened(n);
    }

    /** Server to client: GET of n bytes; the listener gets exactly those bytes in one response. */
    @ParameterizedTest(name = "download {0} bytes")
    @ValueSource(ints = {0, 1, 1023, 1024, 1025, 100_000})
    void download(int n) {
        Request.Builder get = Request.get();
        get.options().uriPath("data").addUriQuery("n=" + n);
        Response r = exchange(get);
        assertEquals(Code.CONTENT, r.code());
        assertArrayEquals(body(n), r.payload(), "client received the body byte for byte");
        assertEquals(42, r.options().contentFormat());
        assertEquals(1, resources.seen.size(), "the handler ran once; the other blocks came from the cache");
        assertLossHappened(n);
    }

    /** The large transfers must really have crossed a lossy link (else the test proves little). */
    private void assertLossHappened(int n) {
        if (n == 100_000) {
            long retransmissions = client.counters().get(EndpointCounters.Counter.RETRANSMISSIONS)
                    + client.counters().get(EndpointCounters.Counter.DUPLICATES)
                    + server.counters().get(EndpointCounters.Counter.DUPLICATES);
            assertTrue(retransmissions > 10, "lossy link exercised: " + retransmissions + " retransmissions/duplicates");
        }
    }
}
