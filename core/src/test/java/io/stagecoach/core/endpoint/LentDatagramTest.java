package io.stagecoach.core.endpoint;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.core.testutil.TestConfigs;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server whose protocol stage runs inline decodes each datagram in the connector's buffer, which
 * the connector reuses for the next one: what a request keeps (options, token, payload) must be
 * its own, and bad input still gets its answer. Over real loopback sockets, with each UDP connector.
 */
class LentDatagramTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private CoapServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private static byte[] exchange(DatagramSocket client, byte[] request, int port) throws Exception {
        client.send(new DatagramPacket(request, request.length, LOOPBACK, port));
        DatagramPacket in = new DatagramPacket(new byte[1500], 1500);
        client.receive(in); // bounded by the socket's timeout
        return Arrays.copyOf(in.getData(), in.getLength());
    }

    @ParameterizedTest
    @EnumSource(value = UdpConnectorChoice.class, names = {"JDK", "NETTY"})
    void aKeptRequestIsUnchangedByLaterDatagramsAndBadInputIsStillAnswered(UdpConnectorChoice choice) throws Exception {
        List<Request> kept = new CopyOnWriteArrayList<>();
        server = CoapServer.builder().udp(new InetSocketAddress(LOOPBACK, 0), choice)
                .config(TestConfigs.protocolThreads(0)).build();
        server.add(CoapResource.named("keep").onPost(ex -> {
            kept.add(ex.request());
            ex.respond(ex.query("a") + ":" + ex.payloadText());
        }));
        server.start();
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            client.setSoTimeout(10_000);
            // CON POST, MID 0x0101, token 0a0b, Uri-Path "keep", Uri-Query "a=1", payload "hello"
            byte[] first = exchange(client, hex("42020101" + "0a0b" + "b46b656570" + "43613d31" + "ff" + "68656c6c6f"),
                    server.port());
            assertEquals("1:hello", payloadText(first));
            // the same size and shape, other bytes: the connector's buffer now holds this one
            byte[] second = exchange(client, hex("42020102" + "0c0d" + "b46b656570" + "43613d32" + "ff" + "776f726c64"),
                    server.port());
            assertEquals("2:world", payloadText(second));

            Request r = kept.get(0);
            assertEquals(List.of("keep"), r.options().uriPath());
            assertEquals(List.of("a=1"), r.options().uriQuery());
            assertEquals("hello", r.payloadString());
            assertEquals("0a0b", r.token().toHex());

            // a CON whose option runs past the end: RST with its MID (RFC 7252 4.2)
            assertArrayEquals(hex("7000abcd"), exchange(client, hex("4001abcd" + "b5626364"), server.port()));
            // a CON GET with an unrecognized critical option (number 1001): 4.02 piggybacked
            byte[] badOption = exchange(client, hex("40010103" + "e102dc78"), server.port());
            assertEquals(0x60, badOption[0] & 0xF0, "ACK");
            assertEquals(0x82, badOption[1] & 0xFF, "4.02 Bad Option");
        }
    }

    private static String payloadText(byte[] response) {
        for (int i = 4 + (response[0] & 0x0F); i < response.length; i++) {
            if ((response[i] & 0xFF) == 0xFF) {
                return new String(response, i + 1, response.length - i - 1, StandardCharsets.UTF_8);
            }
        }
        return "";
    }
}
