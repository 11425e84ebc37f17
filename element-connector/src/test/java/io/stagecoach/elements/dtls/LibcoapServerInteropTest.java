package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.testing.LoopbackPorts;
import io.stagecoach.elements.testing.ThreadLeakCheck;
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

    @ParameterizedTest
    @ValueSource(strings = {"coap-server-openssl", "coap-server-gnutls"})
    void getWellKnownCoreWithPsk(String serverBinary) throws Exception {
        String bin = LibcoapInteropSupport.binary(serverBinary);
        int coapPort = LoopbackPorts.freeUdpAndTcpPortPair();
        // -p is the coap port; coaps listens on coapPort + 1
        int port = coapPort + 1;
        server = new ProcessBuilder(bin, "-A", "127.0.0.1", "-p", Integer.toString(coapPort), "-k", "key", "-h", "id")
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
