package io.stagecoach.elements.dtls;

import java.io.IOException;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.ContentType;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsDecodeResult;

/**
 * The cipher BouncyCastle protects a handshake's encrypted records with (its Finished messages,
 * epoch 1), with one check added on the way in: a decrypted handshake record whose fragments
 * announce a message longer than {@value DatagramScreen#MAX_HANDSHAKE_MESSAGE} bytes is refused as
 * {@code bad_record_mac}, which BC's DTLS record layer drops silently (RFC 6347 §4.1.2.7), before
 * its reassembler allocates a buffer of the announced size.
 *
 * <p>Why: BC before 1.85 (CVE-2026-59646) allocates {@code byte[length]} from the unchecked 24-bit
 * length of a handshake fragment header, for up to 16 messages per handshake. {@link DatagramScreen}
 * reads that header in plaintext (epoch 0) records on the receive thread; in an encrypted record it
 * can only be read here, after decryption. A peer that completed the key exchange (anyone, with
 * ECDHE_ECDSA and no client authentication) could otherwise make a handshake hold ~256 MiB. The
 * only encrypted handshake message of DTLS 1.2 is Finished (12 bytes of verify data, RFC 5246 §7.4.9),
 * so the limit costs nothing legitimate.
 *
 * <p>Everything else is the delegate's, unchanged: encoding, limits, and every other content type.
 */
final class ScreeningCipher extends ForwardingCipher {

    private static final int LENGTH_OFFSET = 1;
    private static final int FRAGMENT_LENGTH_OFFSET = 9;

    private final Runnable onRefused;

    /**
     * @param onRefused run once per refused record (on the handshake thread), for a counter
     */
    ScreeningCipher(TlsCipher delegate, Runnable onRefused) {
        super(delegate);
        this.onRefused = onRefused;
    }

    @Override
    public TlsDecodeResult decodeCiphertext(long seqNo, short recordType, ProtocolVersion recordVersion,
            byte[] ciphertext, int offset, int len) throws IOException {
        TlsDecodeResult plain = super.decodeCiphertext(seqNo, recordType, recordVersion, ciphertext, offset, len);
        if (plain.contentType == ContentType.handshake && announcesOversizedMessage(plain.buf, plain.off, plain.len)) {
            onRefused.run();
            throw new TlsFatalAlert(AlertDescription.bad_record_mac);
        }
        return plain;
    }

    /**
     * Walks the fragments of a handshake record's plaintext as BC's reassembler does (a header of
     * 12 bytes, then {@code fragment_length} bytes; a cut-short tail ends the walk) and tells whether
     * any header it reaches announces a message over the limit.
     */
    static boolean announcesOversizedMessage(byte[] buf, int off, int len) {
        int end = off + len;
        int at = off;
        while (end - at >= HandshakeFragment.HEADER_LENGTH) {
            if (HandshakeFragment.uint24(buf, at + LENGTH_OFFSET) > DatagramScreen.MAX_HANDSHAKE_MESSAGE) {
                return true;
            }
            at += HandshakeFragment.HEADER_LENGTH + HandshakeFragment.uint24(buf, at + FRAGMENT_LENGTH_OFFSET);
        }
        return false;
    }
}
