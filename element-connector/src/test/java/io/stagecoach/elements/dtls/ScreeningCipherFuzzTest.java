package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.ContentType;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsDecodeResult;

/**
 * Jazzer target for the screen on decrypted handshake records ({@link ScreeningCipher}): the
 * first input byte picks where the plaintext starts inside the buffer, the rest is the buffer.
 *
 * <p>Contract: the screen returns the delegate's plaintext untouched, or refuses with
 * {@code bad_record_mac} and counts once, exactly when a fragment header that BouncyCastle's walk
 * reaches (RFC 6347 §4.2.2: 12-byte header, then {@code fragment_length} bytes) announces a message
 * over 32 KiB; it never throws anything else. The oracle below walks with a {@link ByteBuffer}.
 * Seeds in {@code ScreeningCipherFuzzTestInputs/records/}.
 */
class ScreeningCipherFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void records(byte[] input) throws Exception {
        if (input.length < 1) {
            return;
        }
        byte[] b = Arrays.copyOfRange(input, 1, input.length);
        int off = b.length == 0 ? 0 : (input[0] & 0xFF) % (b.length + 1);
        AtomicInteger refused = new AtomicInteger();
        ScreeningCipher cipher = new ScreeningCipher(new IdentityCipher(), refused::incrementAndGet);
        boolean expectRefusal = oversizedByOracle(ByteBuffer.wrap(b, off, b.length - off).slice());
        try {
            TlsDecodeResult r = cipher.decodeCiphertext(0, ContentType.handshake, ProtocolVersion.DTLSv12, b, off,
                    b.length - off);
            assertSame(b, r.buf);
            assertEquals(off, r.off);
            assertEquals(false, expectRefusal, "an oversized announcement passed");
        } catch (TlsFatalAlert alert) {
            assertEquals(AlertDescription.bad_record_mac, alert.getAlertDescription());
            assertEquals(true, expectRefusal, "refused without an oversized announcement");
            assertEquals(1, refused.get());
        }
    }

    private static boolean oversizedByOracle(ByteBuffer p) {
        while (p.remaining() >= HandshakeFragment.HEADER_LENGTH) {
            int start = p.position();
            long length = p.getInt(start) & 0xFFFFFFL; // msg_type(1) length(3) read as one int
            long fragmentLength = p.getInt(start + 8) & 0xFFFFFFL; // message_seq's low byte, then fragment_length
            if (length > DatagramScreen.MAX_HANDSHAKE_MESSAGE) {
                return true;
            }
            if (fragmentLength > p.remaining() - HandshakeFragment.HEADER_LENGTH) {
                return false;
            }
            p.position(start + HandshakeFragment.HEADER_LENGTH + (int) fragmentLength);
        }
        return false;
    }
}
