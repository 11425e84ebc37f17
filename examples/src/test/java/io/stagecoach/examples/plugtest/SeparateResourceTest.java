package io.stagecoach.examples.plugtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /separate} holds an exchange and a timer per GET for a second: a burst beyond its cap of
 * waiting answers is refused at once with 5.03, and the cap frees up as the answers go out. Raw
 * NON GETs on the in-memory network and a virtual clock.
 */
class SeparateResourceTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 3);
    private final List<byte[]> datagrams = new CopyOnWriteArrayList<>();
    private CoapServer server;
    private SimulatedConnector peer;

    @AfterEach
    void stop() {
        server.destroy();
        peer.destroy();
    }

    private SeparateResource start(int maxPending) throws Exception {
        CoapEndpoint endpoint = CoapEndpoint.builder().connector(net.connector(SERVER)).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(endpoint).build();
        SeparateResource separate = new SeparateResource(clock, maxPending);
        server.add(separate);
        server.start();
        peer = net.connector(new InetSocketAddress("10.0.0.2", 40000));
        peer.setRawDataReceiver(raw -> datagrams.add(raw.bytes()));
        peer.start();
        return separate;
    }

    private void get(int mid) {
        Request.Builder r = Request.get().type(Type.NON).mid(mid).token(Token.fromHex(String.format("%04x", mid)));
        r.options().uriPath("separate");
        peer.send(RawData.outbound(new UdpMessageSerializer().serialize(r.build()), EndpointContext.of(SERVER), null));
        clock.advance(Duration.ZERO);
        clock.advance(Duration.ZERO);
    }

    private List<Message> received() throws Exception {
        List<Message> out = new ArrayList<>();
        for (byte[] d : datagrams) {
            out.add(new UdpMessageParser().parse(d));
        }
        return out;
    }

    private List<Code> codes() throws Exception {
        return received().stream().map(Message::code).collect(Collectors.toList());
    }

    @Test
    void getsBeyondTheCapAreRefusedAtOnceAndTheCapFreesUp() throws Exception {
        SeparateResource separate = start(3);
        for (int mid = 1; mid <= 5; mid++) {
            get(mid);
        }
        assertEquals(List.of(Code.SERVICE_UNAVAILABLE, Code.SERVICE_UNAVAILABLE), codes(), "two over the cap of 3");
        assertEquals(1, received().get(0).options().maxAge());
        assertEquals(3, separate.pending());
        clock.advance(SeparateResource.DELAY);
        assertEquals(5, received().size(), "the three waiting ones answered: " + codes());
        assertTrue(codes().subList(2, 5).stream().allMatch(c -> c == Code.CONTENT), codes().toString());
        assertEquals(0, separate.pending());
        get(6);
        clock.advance(SeparateResource.DELAY);
        assertEquals(Code.CONTENT, received().get(5).code(), "room again");
    }
}
