package io.stagecoach.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.cf.CaliforniumServer;
import io.stagecoach.bench.compare.ServerSpec;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The servers compare mode starts in-process answer a CON GET /benchmark over loopback UDP with
 * the piggybacked 2.05 "hello world" (text/plain) that every compared server returns.
 */
@Timeout(60)
class ReferenceServersTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void californiumAnswersBenchmarkWithAndWithoutDedup() throws Exception {
        for (boolean noDedup : new boolean[] {false, true}) {
            CaliforniumServer cf = new CaliforniumServer(ANY_LOOPBACK, noDedup);
            cf.start();
            try {
                assertHelloWorld(cf.address(), 0x2001, "californium noDedup=" + noDedup);
            } finally {
                cf.destroy();
            }
        }
    }

    @Test
    void stagecoachBenchServerAnswersBenchmark() throws Exception {
        CoapServer server = BenchServer.create(ANY_LOOPBACK, CoapConfig.builder().build());
        server.start();
        try {
            assertHelloWorld(server.addresses().get(0), 0x3001, "stagecoach sc-server");
        } finally {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void compareDefaultsListCaliforniumInBothDedupModes() {
        List<ServerSpec> d = ServerSpec.defaults("benchmark");
        assertTrue(d.stream().anyMatch(s -> s.name().equals("californium") && s.command().endsWith("cf-server --bind 127.0.0.1 --port {port}")), d.toString());
        assertTrue(d.stream().anyMatch(s -> s.name().equals("californium-nodedup") && s.command().endsWith("--no-dedup")), d.toString());
    }

    /** Sends CON GET /benchmark with MID {@code mid} and token 0xCAFE; expects the ACK with the same MID and token. */
    private static void assertHelloWorld(InetSocketAddress server, int mid, String who) throws Exception {
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort());
        Request get = Request.get().type(Type.CON).mid(mid).token(Token.fromHex("cafe"))
                .options(OptionSet.builder().addUriPath("benchmark").build()).build();
        byte[] out = new UdpMessageSerializer().serialize(get);
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            socket.setSoTimeout(10_000);
            socket.send(new DatagramPacket(out, out.length, target));
            byte[] in = new byte[1500];
            DatagramPacket p = new DatagramPacket(in, in.length);
            socket.receive(p);
            Message m = new UdpMessageParser().parse(java.util.Arrays.copyOf(in, p.getLength()));
            assertTrue(m instanceof Response, who + " sent " + m);
            assertEquals(Type.ACK, m.type(), who + " sent " + m);
            assertEquals(mid, m.mid(), who + " sent " + m);
            assertEquals(Token.fromHex("cafe"), m.token(), who + " sent " + m);
            assertEquals(Code.CONTENT, ((Response) m).code(), who + " sent " + m);
            assertEquals("hello world", ((Response) m).payloadString(), who + " sent " + m);
            assertEquals(0, m.options().contentFormat(), who + " sent " + m);
        }
    }
}
