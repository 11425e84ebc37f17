package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Our DTLS client connector against libcoap's {@code coap-server-openssl} / {@code -gnutls} with PSK. */
class LibcoapServerInteropTest {

    private Process server;
    private DtlsConnector client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.destroy();
        }
        if (server != null) {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /**
     * A port P such that P - 1 and P are free on loopback for UDP and for TCP: coap-server binds
     * coap and coap+tcp on P - 1, coaps and coaps+tcp on P, and exits if one is taken (checking P
     * alone let a neighbour's socket on P - 1 fail the test now and then).
     */
    private static int freePort() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 50; attempt++) {
            try (DatagramSocket s = new DatagramSocket(0, loopback)) {
                int p = s.getLocalPort();
                if (p > 1024 && free(p - 1, loopback) && freeTcp(p, loopback)) {
                    return p;
                }
            }
        }
        throw new IllegalStateException("no pair of free loopback ports in 50 attempts");
    }

    private static boolean free(int port, InetAddress address) {
        try (DatagramSocket u = new DatagramSocket(port, address)) {
            return freeTcp(port, address);
        } catch (java.io.IOException taken) {
            return false;
        }
    }

    private static boolean freeTcp(int port, InetAddress address) {
        try (java.net.ServerSocket t = new java.net.ServerSocket(port, 1, address)) {
            return true;
        } catch (java.io.IOException taken) {
            return false;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"coap-server-openssl", "coap-server-gnutls"})
    void getWellKnownCoreWithPsk(String serverBinary) throws Exception {
        String bin = LibcoapInteropSupport.binary(serverBinary);
        int port = freePort();
        // -p is the coap port; coaps listens on port + 1
        server = new ProcessBuilder(bin, "-A", "127.0.0.1", "-p", Integer.toString(port - 1), "-k", "key", "-h", "id")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        client = DtlsTestSupport.pskClient().pskCredentials(PskCredentials.of("id", "key"))
                .retransmissionTimeout(Duration.ofMillis(200)).build();
        Inbox inbox = new Inbox();
        inbox.attach(client);
        client.start();
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        DtlsTestSupport.send(client, to, CoapBytes.getWellKnownCore()).get(DtlsTestSupport.TIMEOUT_S, TimeUnit.SECONDS);
        RawData reply = inbox.take();
        assertEquals(0x45, CoapBytes.code(reply.bytes()), "2.05 Content");
        assertEquals(0x12, reply.bytes()[2]);
        assertEquals(0x34, reply.bytes()[3]);
    }
}
