package io.stagecoach.elements.dtls;

import static io.stagecoach.elements.dtls.DtlsTestSupport.TIMEOUT_S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.net.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.BasicTlsPSKIdentity;
import org.bouncycastle.tls.ContentType;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.HandshakeType;
import org.bouncycastle.tls.PSKTlsClient;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.UDPTransport;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.TlsEncodeResult;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer that knows the key sends its Finished (the one encrypted handshake message, epoch 1) with
 * a header announcing 16 MiB, which BouncyCastle 1.84 would allocate (CVE-2026-59646) and which
 * {@link DatagramScreen} cannot read on the receive thread. The server must drop it silently
 * after decryption and count it.
 *
 * <pre>
 * BC client                                   our server
 *   ClientHello                    ------>
 *                                  <------    HelloVerifyRequest
 *   ClientHello (cookie)           ------>
 *                                  <------    ServerHello, ServerHelloDone
 *   ClientKeyExchange, CCS,
 *   Finished [epoch 1, length 2^24-1] ---->   decrypted, refused (bad_record_mac: dropped, counted)
 *   ... retransmitted flights, all refused; no session
 * </pre>
 */
class EncryptedHandshakeScreenTest {

    private DtlsConnector server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** Rewrites the announced length of every Finished it encrypts. */
    private static final class InflatingCipher extends ForwardingCipher {
        private final AtomicInteger inflated;

        InflatingCipher(TlsCipher delegate, AtomicInteger inflated) {
            super(delegate);
            this.inflated = inflated;
        }

        @Override
        public TlsEncodeResult encodePlaintext(long seqNo, short contentType, ProtocolVersion recordVersion,
                int headerAllocation, byte[] plaintext, int offset, int len) throws IOException {
            if (contentType == ContentType.handshake && plaintext[offset] == HandshakeType.finished) {
                byte[] changed = java.util.Arrays.copyOfRange(plaintext, offset, offset + len);
                changed[1] = changed[2] = changed[3] = (byte) 0xFF; // length: 2^24 - 1
                inflated.incrementAndGet();
                return super.encodePlaintext(seqNo, contentType, recordVersion, headerAllocation, changed, 0, len);
            }
            return super.encodePlaintext(seqNo, contentType, recordVersion, headerAllocation, plaintext, offset, len);
        }
    }

    private static final class InflatingClient extends PSKTlsClient {
        InflatingClient(AtomicInteger inflated) {
            super(new BcTlsCrypto(new SecureRandom()) {
                @Override
                public TlsCipher createCipher(TlsCryptoParameters params, int encryption, int mac) throws IOException {
                    return new InflatingCipher(super.createCipher(params, encryption, mac), inflated);
                }
            }, new BasicTlsPSKIdentity("client1".getBytes(StandardCharsets.UTF_8),
                    "secretPSK".getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.DTLSv12.only();
        }
    }

    @Test
    void anEncryptedFinishedAnnouncingSixteenMebibytesIsDroppedAndCounted() throws Exception {
        server = DtlsTestSupport.pskServer().build();
        server.start();
        AtomicInteger inflated = new AtomicInteger();
        CompletableFuture<Void> handshake;
        try (DatagramSocket socket = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            socket.connect(server.getAddress());
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            handshake = CompletableFuture.runAsync(() -> {
                try {
                    new DTLSClientProtocol().connect(new InflatingClient(inflated), new UDPTransport(socket, 1500));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertTrue(Await.until(() -> server.dtlsCounters().datagramsMalformed() >= 1, Duration.ofSeconds(TIMEOUT_S)),
                    "the inflated Finished was not refused: " + server.dtlsCounters());
        } // closing the socket ends the client's wait for the server's Finished
        assertThrows(ExecutionException.class, () -> handshake.get(TIMEOUT_S, TimeUnit.SECONDS));
        assertTrue(inflated.get() >= 1);
        assertEquals(0, server.dtlsCounters().handshakesSucceeded());
        assertEquals(0, server.dtlsCounters().recordsBadMac(), "refused after decryption, not a failed MAC");
    }
}
