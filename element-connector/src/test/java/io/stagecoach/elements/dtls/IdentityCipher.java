package io.stagecoach.elements.dtls;

import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsDecodeResult;
import org.bouncycastle.tls.crypto.TlsEncodeResult;

/** "Decrypts" to its input with the record's own content type. */
final class IdentityCipher implements TlsCipher {
    @Override
    public TlsDecodeResult decodeCiphertext(long seqNo, short recordType, ProtocolVersion recordVersion,
            byte[] ciphertext, int offset, int len) {
        return new TlsDecodeResult(ciphertext, offset, len, recordType);
    }

    @Override
    public TlsEncodeResult encodePlaintext(long seqNo, short contentType, ProtocolVersion recordVersion,
            int headerAllocation, byte[] plaintext, int offset, int len) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int getCiphertextDecodeLimit(int plaintextLimit) {
        return plaintextLimit;
    }

    @Override
    public int getCiphertextEncodeLimit(int plaintextLimit) {
        return plaintextLimit;
    }

    @Override
    public int getPlaintextDecodeLimit(int ciphertextLimit) {
        return ciphertextLimit;
    }

    @Override
    public int getPlaintextEncodeLimit(int ciphertextLimit) {
        return ciphertextLimit;
    }

    @Override
    public void rekeyDecoder() {
    }

    @Override
    public void rekeyEncoder() {
    }

    @Override
    public boolean usesOpaqueRecordTypeDecode() {
        return false;
    }

    @Override
    public boolean usesOpaqueRecordTypeEncode() {
        return false;
    }
}
