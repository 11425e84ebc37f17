package io.stagecoach.elements.dtls;

import java.io.IOException;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsDecodeResult;
import org.bouncycastle.tls.crypto.TlsEncodeResult;

/**
 * Record protection by a BouncyCastle {@link TlsCipher} of our own (a second instance with the
 * keys of the one BC's record layer used for the handshake): for the suites
 * {@link AeadProtection} does not cover (CBC with HMAC, where BC's constant-time padding check
 * matters). It keeps BC's handshake context alive, so such sessions are not compact.
 */
final class BcCipherProtection implements RecordProtection {

    private final TlsCipher cipher;
    private final byte[] writeCid;

    BcCipherProtection(TlsCipher cipher, byte[] writeCid) {
        this.cipher = cipher;
        this.writeCid = writeCid == null || writeCid.length == 0 ? null : writeCid.clone();
    }

    @Override
    public byte[] seal(int contentType, int epoch, long seq, byte[] plain, int off, int len) {
        int header = RecordHeader.HEADER_LENGTH + (writeCid != null ? writeCid.length : 0);
        TlsEncodeResult r;
        try {
            r = cipher.encodePlaintext(((long) epoch << 48) | seq, (short) contentType, ProtocolVersion.DTLSv12, header,
                    plain, off, len);
        } catch (IOException e) {
            throw new IllegalStateException("encryption failed", e);
        }
        byte[] out = r.off == 0 && r.len == r.buf.length ? r.buf : java.util.Arrays.copyOfRange(r.buf, r.off, r.off + r.len);
        int fragment = out.length - header;
        out[0] = (byte) r.recordType;
        out[1] = (byte) 254;
        out[2] = (byte) 253;
        out[3] = (byte) (epoch >> 8);
        out[4] = (byte) epoch;
        for (int i = 10; i >= 5; i--, seq >>>= 8) {
            out[i] = (byte) seq;
        }
        if (writeCid != null) {
            System.arraycopy(writeCid, 0, out, 11, writeCid.length);
        }
        out[header - 2] = (byte) (fragment >> 8);
        out[header - 1] = (byte) fragment;
        return out;
    }

    @Override
    public boolean open(byte[] buf, RecordHeader h, Opened out) {
        long seqNo = ((long) h.epoch() << 48) | h.sequence();
        TlsDecodeResult d;
        try {
            d = cipher.decodeCiphertext(seqNo, (short) h.contentType(),
                    ProtocolVersion.get(h.versionMajor(), h.versionMinor()), buf, h.fragmentOffset(), h.fragmentLength());
        } catch (TlsFatalAlert e) {
            return false; // bad MAC, bad padding, too short: all dropped silently
        } catch (IOException e) {
            return false;
        }
        if (d.buf != buf) {
            System.arraycopy(d.buf, d.off, buf, h.fragmentOffset(), d.len);
            out.offset = h.fragmentOffset();
        } else {
            out.offset = d.off;
        }
        out.contentType = d.contentType;
        out.length = d.len;
        return true;
    }

    @Override
    public int plaintextLimit(int maxRecord) {
        int header = RecordHeader.HEADER_LENGTH + (writeCid != null ? writeCid.length : 0);
        return Math.min(1 << 14, cipher.getPlaintextEncodeLimit(maxRecord - header));
    }

    @Override
    public int minFragmentLength() {
        return 1;
    }

    @Override
    public void cool() {
        // BC's cipher keeps its state; nothing to drop
    }
}
