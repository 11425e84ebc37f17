package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.testing.LoopbackPorts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Stagecoach's codec against libcoap 4.3.1's example server ({@code coap-server-notls}): requests
 * encoded by {@code UdpMessageSerializer} on a plain UDP socket, replies decoded by
 * {@code UdpMessageParser}. No Stagecoach endpoint is involved yet.
 */
@Tag("interop")
class LibcoapServerInteropTest {

    /**
     * How long one request waits for coap-server's single reply (nothing is retransmitted). The
     * reply takes about a millisecond; 3 s left little room for a peer process descheduled on a
     * shared 2-core CI machine, and the wait ends at the reply, so only a failing run waits it out.
     */
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(15);

    private static PeerProcess server;
    private static InetSocketAddress serverAddress;

    @BeforeAll
    static void startServer() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_SERVER);
        int port = LoopbackPorts.freeUdpAndTcpPort();
        serverAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        server = PeerProcess.start(exe, "-A", "127.0.0.1", "-p", Integer.toString(port));
        CoapPing.awaitReady(serverAddress, server, Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
            assertFalse(server.isAlive(), "coap-server-notls survived close()");
        }
    }

    @Test
    void conGetOfRootIsAnsweredWithPiggybackedContent() throws Exception {
        Token token = Token.fromHex("c0ffee01");
        Request get = Request.get().uri("coap://127.0.0.1:" + serverAddress.getPort() + "/")
                .type(Type.CON).mid(0x1234).token(token).build();
        try (CodecSocket socket = CodecSocket.bindLoopback()) {
            socket.send(get, serverAddress);
            Message reply = socket.expect(REPLY_TIMEOUT, "to CON GET / from coap-server-notls");

            String seen = "sent CON GET / mid 0x1234 token c0ffee01, got " + reply + "\n" + socket.log();
            Response response = assertInstanceOf(Response.class, reply, seen);
            assertEquals(Type.ACK, response.type(), seen);
            assertEquals(0x1234, response.mid(), seen);
            assertEquals(token, response.token(), seen);
            assertEquals(Code.CONTENT, response.code(), seen);
            assertTrue(response.payloadString().contains("libcoap"), seen);
        }
    }

    @Test
    void pingIsAnsweredWithRstOfTheSameMid() throws Exception {
        try (CodecSocket socket = CodecSocket.bindLoopback()) {
            socket.send(EmptyMessage.ping(0xBEEF), serverAddress);
            Message reply = socket.expect(REPLY_TIMEOUT, "to a CoAP ping (Empty CON, mid 0xbeef)");

            String seen = "sent Empty CON mid 0xbeef, got " + reply + "\n" + socket.log();
            assertInstanceOf(EmptyMessage.class, reply, seen);
            assertEquals(Type.RST, reply.type(), seen);
            assertEquals(0xBEEF, reply.mid(), seen);
        }
    }

    @Test
    void wellKnownCoreIsLinkFormat() throws Exception {
        Token token = Token.fromHex("01");
        Request get = Request.get().uri("coap://127.0.0.1:" + serverAddress.getPort() + "/.well-known/core")
                .type(Type.CON).mid(0x0002).token(token).build();
        try (CodecSocket socket = CodecSocket.bindLoopback()) {
            socket.send(get, serverAddress);
            Message reply = socket.expect(REPLY_TIMEOUT, "to CON GET /.well-known/core");

            String seen = "sent CON GET /.well-known/core, got " + reply + "\n" + socket.log();
            Response response = assertInstanceOf(Response.class, reply, seen);
            assertEquals(Type.ACK, response.type(), seen);
            assertEquals(0x0002, response.mid(), seen);
            assertEquals(token, response.token(), seen);
            assertEquals(Code.CONTENT, response.code(), seen);
            assertEquals(ContentFormat.LINK_FORMAT.number(), response.options().contentFormat(), seen);
            assertTrue(response.payloadString().contains("</time>"), seen);
        }
    }
}
