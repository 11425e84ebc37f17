package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.core.test.lockstep.LockstepPeer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The {@link MessageTracer} on a server endpoint: one DEBUG line on {@code io.stagecoach.trace}
 * per message on the wire, in either direction, and nothing at INFO.
 */
class MessageTracerTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedNetwork net = new SimulatedNetwork(clock, 3);
    private final Logger trace = (Logger) LoggerFactory.getLogger("io.stagecoach.trace");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private Level levelBefore;
    private CoapEndpoint server;
    private LockstepPeer client;

    @BeforeEach
    void start() throws Exception {
        levelBefore = trace.getLevel();
        lines.start();
        trace.addAppender(lines);
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.DEDUPLICATION_MODE, DeduplicationMode.STRICT).build();
        server = CoapEndpoint.builder().connector(net.connector(SERVER)).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(8)).interceptor(new MessageTracer()).build();
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload("hi").build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });
        server.start();
        client = LockstepPeer.attach("client", net, new InetSocketAddress("10.0.0.9", 40001), clock)
                .defaultDestination(SERVER);
    }

    @AfterEach
    void stop() {
        trace.detachAppender(lines);
        trace.setLevel(levelBefore);
        assertEquals(0, server.openExchanges());
        server.destroy();
        client.close();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * <pre>
     * client                               server            trace lines
     *  | CON GET /t MID=0x0101 T=0a ------->|                 "<- /10.0.0.9:40001 CON ... GET ..."
     *  |<---------- ACK 2.05 MID=0x0101 "hi"|                 "-> /10.0.0.9:40001 ACK ... 2.05 ..."
     *  | CON GET /t MID=0x0101 T=0a ------->|  duplicate      "<- ..."
     *  |<---------- the stored ACK          |                 "-> ... ACK ..."
     *  | CON 0.00 MID=0x0202 -------------->|  ping           "<- ..."
     *  |<---------- RST MID=0x0202          |                 "-> ... RST ..."
     * </pre>
     */
    @Test
    void logsOneDebugLinePerMessage() {
        trace.setLevel(Level.DEBUG);
        client.con().get().mid(0x0101).token("0a").path("t").go();
        client.expect().type(Type.ACK).code(Code.CONTENT);
        client.con().get().mid(0x0101).token("0a").path("t").go();
        client.expect().type(Type.ACK).code(Code.CONTENT);
        client.ping(0x0202).go();
        client.expect().rst(0x0202);
        client.expectNothing();

        List<ILoggingEvent> events = lines.list;
        assertEquals(6, events.size(), () -> "one line per datagram on the wire: " + events);
        String[] directions = {"<-", "->", "<-", "->", "<-", "->"};
        String[] types = {"CON", "ACK", "CON", "ACK", "CON", "RST"};
        for (int i = 0; i < events.size(); i++) {
            ILoggingEvent e = events.get(i);
            String line = e.getFormattedMessage();
            assertEquals(Level.DEBUG, e.getLevel());
            assertFalse(line.contains("\n"), "one line: " + line);
            assertTrue(line.startsWith(directions[i] + " /10.0.0.9:40001 "), line);
            assertTrue(line.contains(types[i]), types[i] + " in " + line);
        }
        assertTrue(events.get(1).getFormattedMessage().contains("2.05"), events.get(1).getFormattedMessage());
        assertEquals(events.get(1).getFormattedMessage(), events.get(3).getFormattedMessage(),
                "the stored reply is traced like the original");
    }

    @Test
    void logsNothingAtInfo() {
        trace.setLevel(Level.INFO);
        client.con().get().mid(0x0101).token("0a").path("t").go();
        client.expect().type(Type.ACK).code(Code.CONTENT);
        client.ping(0x0202).go();
        client.expect().rst(0x0202);
        assertEquals(List.of(), lines.list);
    }
}
