package io.stagecoach.elements.dtls;

import static io.stagecoach.elements.dtls.DtlsTestSupport.TIMEOUT_S;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.dtls.DtlsTestSupport.Inbox;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.tls.BasicTlsPSKIdentity;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.PSKTlsClient;
import org.bouncycastle.tls.PSKTlsServer;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsPSKIdentityManager;
import org.bouncycastle.tls.UDPTransport;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Established sessions use our own record layer, not BouncyCastle's; these tests pit it against
 * BouncyCastle's (a plain {@link DTLSClientProtocol} / {@link DTLSServerProtocol} over a socket,
 * none of our code) with connection IDs in both directions, for every AEAD suite, so that nonce,
 * additional data and the {@code tls12_cid} inner plaintext are checked against an independent
 * implementation (libcoap's OpenSSL and GnuTLS do not offer connection IDs).
 */
class BcRecordLayerInteropTest {

    private static final byte[] SECRET = "secretPSK".getBytes(StandardCharsets.UTF_8);
    private final List<Connector> opened = new ArrayList<>();

    @AfterEach
    void stopAll() {
        opened.forEach(Connector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private DtlsConnector open(DtlsConnectorConfig.Builder b) throws Exception {
        DtlsConnector c = b.build();
        opened.add(c);
        c.start();
        return c;
    }

    /** A BC client that asks for a 3-byte connection ID in the records it receives. */
    private static final class CidClient extends PSKTlsClient {
        private final int suite;

        CidClient(int suite) {
            super(new BcTlsCrypto(new SecureRandom()),
                    new BasicTlsPSKIdentity("client1".getBytes(StandardCharsets.UTF_8), SECRET.clone()));
            this.suite = suite;
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.DTLSv12.only();
        }

        @Override
        protected int[] getSupportedCipherSuites() {
            return new int[] {suite};
        }

        @Override
        protected byte[] getNewConnectionID() {
            return new byte[] {7, 8, 9};
        }
    }

    @ParameterizedTest
    @EnumSource(value = DtlsCipherSuite.class, names = {"TLS_PSK_WITH_AES_128_CCM_8", "TLS_PSK_WITH_AES_128_CCM",
            "TLS_PSK_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256"})
    void bouncyCastleClientWithConnectionIdsBothWays(DtlsCipherSuite suite) throws Exception {
        DtlsConnector server = open(DtlsTestSupport.pskServer().cipherSuites(suite));
        DtlsTestSupport.echo(server);
        try (DatagramSocket socket = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            socket.connect(server.getAddress());
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            DTLSTransport bc = new DTLSClientProtocol().connect(new CidClient(suite.code()), new UDPTransport(socket, 1500));
            byte[] buf = new byte[1500];
            for (int i = 0; i < 5; i++) {
                byte[] out = ("m" + i).getBytes(StandardCharsets.UTF_8);
                bc.send(out, 0, out.length);
                int n = bc.receive(buf, 0, buf.length, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
                assertEquals("echo:m" + i, new String(buf, 0, n, StandardCharsets.UTF_8));
            }
            assertEquals(suite.name(), server.sessionContext((InetSocketAddress) socket.getLocalSocketAddress())
                    .attribute(DtlsContextKeys.CIPHER_SUITE));
            assertEquals(12, server.sessionContext((InetSocketAddress) socket.getLocalSocketAddress())
                    .attribute(DtlsContextKeys.CONNECTION_ID).length(), "our 6-byte CID in the client's records");
            bc.close();
        }
        assertEquals(0, server.dtlsCounters().recordsBadMac());
        assertTrue(server.counters().received() >= 5);
    }

    /** A BC server that issues a 4-byte connection ID and echoes one datagram per receive. */
    private static final class CidServer extends PSKTlsServer {
        private final int suite;

        CidServer(int suite) {
            super(new BcTlsCrypto(new SecureRandom()), new TlsPSKIdentityManager() {
                @Override
                public byte[] getHint() {
                    return null;
                }

                @Override
                public byte[] getPSK(byte[] identity) {
                    return SECRET.clone(); // BC wipes the array it gets after use
                }
            });
            this.suite = suite;
        }

        @Override
        protected int[] getSupportedCipherSuites() {
            return new int[] {suite};
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.DTLSv12.only();
        }

        @Override
        protected byte[] getNewConnectionID() {
            return new byte[] {1, 2, 3, 4};
        }
    }

    @ParameterizedTest
    @EnumSource(value = DtlsCipherSuite.class, names = {"TLS_PSK_WITH_AES_128_GCM_SHA256", "TLS_PSK_WITH_AES_128_CCM_8",
            "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256"})
    void ourClientAgainstABouncyCastleServerWithAConnectionId(DtlsCipherSuite suite) throws Exception {
        try (DatagramSocket socket = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
                try {
                    // the client's first ClientHello (no cookie), then the one with the cookie
                    DTLSVerifier verifier = new DTLSVerifier(new BcTlsCrypto(new SecureRandom()));
                    byte[] buf = new byte[1500];
                    java.net.DatagramPacket p = new java.net.DatagramPacket(buf, buf.length);
                    DTLSRequest request = null;
                    while (request == null) {
                        p.setLength(buf.length);
                        socket.receive(p);
                        java.net.SocketAddress from = p.getSocketAddress();
                        byte[] id = from.toString().getBytes(StandardCharsets.UTF_8);
                        request = verifier.verifyRequest(id, buf, 0, p.getLength(), new org.bouncycastle.tls.DatagramSender() {
                            @Override
                            public int getSendLimit() {
                                return 1500;
                            }

                            @Override
                            public void send(byte[] b, int off, int len) throws java.io.IOException {
                                socket.send(new java.net.DatagramPacket(b, off, len, from));
                            }
                        });
                        if (request != null) {
                            socket.connect(from);
                        }
                    }
                    DTLSTransport bc = new DTLSServerProtocol().accept(new CidServer(suite.code()), new UDPTransport(socket, 1500),
                            request);
                    int n = bc.receive(buf, 0, buf.length, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
                    byte[] got = java.util.Arrays.copyOf(buf, n);
                    bc.send(got, 0, got.length);
                    return got;
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            DtlsConnector client = open(DtlsTestSupport.pskClient().cipherSuites(suite));
            Inbox inbox = new Inbox();
            inbox.attach(client);
            InetSocketAddress to = (InetSocketAddress) socket.getLocalSocketAddress();
            DtlsTestSupport.send(client, to, "hello bc".getBytes(StandardCharsets.UTF_8)).get(TIMEOUT_S, TimeUnit.SECONDS);
            assertArrayEquals("hello bc".getBytes(StandardCharsets.UTF_8), served.get(TIMEOUT_S, TimeUnit.SECONDS));
            assertEquals("hello bc", new String(inbox.take().bytes(), StandardCharsets.UTF_8));
            // our client asked for no CID in the server's records, and wrote the server's 1,2,3,4 in its own
            assertEquals(null, client.sessionContext(to).attribute(DtlsContextKeys.CONNECTION_ID));
        }
    }
}
