package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.ContentType;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsDecodeResult;
import org.bouncycastle.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The screen on decrypted handshake records. The delegate "decrypts" to the bytes it is given, so
 * each test writes the plaintext BC's reassembler would see.
 */
class ScreeningCipherTest {

    private final AtomicInteger refused = new AtomicInteger();
    private final ScreeningCipher cipher = new ScreeningCipher(new IdentityCipher(), refused::incrementAndGet);

    /** A handshake fragment header and body: msg_type, length, message_seq, fragment offset/length. */
    private static byte[] fragment(int type, int length, int seq, int fragmentOffset, int fragmentLength, int bodyBytes) {
        byte[] f = new byte[HandshakeFragment.HEADER_LENGTH + bodyBytes];
        f[0] = (byte) type;
        put24(f, 1, length);
        f[4] = (byte) (seq >> 8);
        f[5] = (byte) seq;
        put24(f, 6, fragmentOffset);
        put24(f, 9, fragmentLength);
        return f;
    }

    private static void put24(byte[] b, int off, int v) {
        b[off] = (byte) (v >> 16);
        b[off + 1] = (byte) (v >> 8);
        b[off + 2] = (byte) v;
    }

    private TlsDecodeResult decode(short type, byte[] plaintext) throws Exception {
        return cipher.decodeCiphertext(1, type, ProtocolVersion.DTLSv12, plaintext, 0, plaintext.length);
    }

    private void assertRefused(byte[] plaintext) {
        TlsFatalAlert alert = assertThrows(TlsFatalAlert.class, () -> decode(ContentType.handshake, plaintext));
        // the one alert BC's DTLS record layer drops silently instead of failing the handshake
        assertEquals(AlertDescription.bad_record_mac, alert.getAlertDescription());
    }

    @Test
    void aFinishedMessagePasses() throws Exception {
        byte[] finished = fragment(20, 12, 5, 0, 12, 12);
        TlsDecodeResult r = decode(ContentType.handshake, finished);
        assertSame(finished, r.buf);
        assertEquals(finished.length, r.len);
        assertEquals(0, refused.get());
    }

    @Test
    void aFragmentAnnouncingSixteenMebibytesIsRefused() {
        assertRefused(fragment(20, 0xFFFFFF, 5, 0, 12, 12));
        assertEquals(1, refused.get());
    }

    @Test
    void theLimitIsInclusive() throws Exception {
        decode(ContentType.handshake, fragment(20, DatagramScreen.MAX_HANDSHAKE_MESSAGE, 5, 0, 4, 4));
        assertRefused(fragment(20, DatagramScreen.MAX_HANDSHAKE_MESSAGE + 1, 5, 0, 4, 4));
        assertEquals(1, refused.get());
    }

    @Test
    void anOversizedSecondFragmentIsRefused() {
        assertRefused(Arrays.concatenate(fragment(20, 12, 5, 0, 12, 12), fragment(20, 1 << 20, 6, 0, 0, 0)));
    }

    @Test
    void anInconsistentFragmentIsStillScreened() {
        // offset + length beyond the message: BC stops its walk there without allocating; the
        // screen is stricter (simpler to reason about) and no legitimate record has such a header
        assertRefused(fragment(20, 40_000, 7, 50_000, 0, 0));
    }

    @Test
    void aCutShortTailEndsTheWalkAsInBc() throws Exception {
        // a body shorter than its fragment_length ends BC's walk, so bytes after it are no header
        byte[] cut = Arrays.concatenate(fragment(20, 12, 5, 0, 40, 12), new byte[] {20, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        decode(ContentType.handshake, cut);
        // fewer than 12 bytes left over: no header there either
        decode(ContentType.handshake, Arrays.concatenate(fragment(20, 12, 5, 0, 12, 12), new byte[] {20, (byte) 0xFF, (byte) 0xFF}));
        assertEquals(0, refused.get());
    }

    @Test
    void otherContentTypesAreNotParsed() throws Exception {
        byte[] looksLikeAHeader = fragment(20, 0xFFFFFF, 5, 0, 12, 12);
        decode(ContentType.application_data, looksLikeAHeader);
        decode(ContentType.alert, looksLikeAHeader);
        assertEquals(0, refused.get());
    }
}
