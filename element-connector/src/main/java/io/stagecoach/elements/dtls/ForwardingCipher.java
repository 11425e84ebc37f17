package io.stagecoach.elements.dtls;

import java.io.IOException;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsDecodeResult;
import org.bouncycastle.tls.crypto.TlsEncodeResult;

/** A {@link TlsCipher} that hands every call to another; subclasses override what they check or change. */
abstract class ForwardingCipher implements TlsCipher {

    private final TlsCipher delegate;

    ForwardingCipher(TlsCipher delegate) {
        this.delegate = delegate;
    }

    @Override
    public TlsDecodeResult decodeCiphertext(long seqNo, short recordType, ProtocolVersion recordVersion,
            byte[] ciphertext, int offset, int len) throws IOException {
        return delegate.decodeCiphertext(seqNo, recordType, recordVersion, ciphertext, offset, len);
    }

    @Override
    public int getCiphertextDecodeLimit(int plaintextLimit) {
        return delegate.getCiphertextDecodeLimit(plaintextLimit);
    }

    @Override
    public int getCiphertextEncodeLimit(int plaintextLimit) {
        return delegate.getCiphertextEncodeLimit(plaintextLimit);
    }

    @Override
    public int getPlaintextDecodeLimit(int ciphertextLimit) {
        return delegate.getPlaintextDecodeLimit(ciphertextLimit);
    }

    @Override
    public int getPlaintextEncodeLimit(int ciphertextLimit) {
        return delegate.getPlaintextEncodeLimit(ciphertextLimit);
    }

    @Override
    public TlsEncodeResult encodePlaintext(long seqNo, short contentType, ProtocolVersion recordVersion,
            int headerAllocation, byte[] plaintext, int offset, int len) throws IOException {
        return delegate.encodePlaintext(seqNo, contentType, recordVersion, headerAllocation, plaintext, offset, len);
    }

    @Override
    public void rekeyDecoder() throws IOException {
        delegate.rekeyDecoder();
    }

    @Override
    public void rekeyEncoder() throws IOException {
        delegate.rekeyEncoder();
    }

    @Override
    public boolean usesOpaqueRecordTypeDecode() {
        return delegate.usesOpaqueRecordTypeDecode();
    }

    @Override
    public boolean usesOpaqueRecordTypeEncode() {
        return delegate.usesOpaqueRecordTypeEncode();
    }
}
