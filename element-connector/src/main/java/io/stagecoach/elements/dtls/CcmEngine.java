package io.stagecoach.elements.dtls;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.modes.CCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/** AES-CCM (RFC 6655) on BouncyCastle's {@link CCMBlockCipher}, its key scheduled once. */
final class CcmEngine implements AeadEngine {

    private final KeyParameter key;
    private final CCMBlockCipher ccm;
    private final int macBits;

    CcmEngine(byte[] keyBytes, int keyOff, int keyLen, int tagLength) {
        this.key = new KeyParameter(keyBytes, keyOff, keyLen);
        this.ccm = (CCMBlockCipher) CCMBlockCipher.newInstance(new KeptKeyAes(key)); // processPacket: no buffering
        this.macBits = tagLength * 8;
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, int aadLength, byte[] in, int off, int len, byte[] out, int outOff) {
        ccm.init(true, new AEADParameters(key, macBits, nonce, aad(aad, aadLength)));
        try {
            ccm.processPacket(in, off, len, out, outOff);
        } catch (InvalidCipherTextException e) {
            throw new IllegalStateException("CCM encryption cannot fail", e);
        }
    }

    @Override
    public boolean open(byte[] nonce, byte[] aad, int aadLength, byte[] buf, int off, int len) {
        ccm.init(false, new AEADParameters(key, macBits, nonce, aad(aad, aadLength)));
        try {
            ccm.processPacket(buf, off, len, buf, off);
            return true;
        } catch (InvalidCipherTextException e) {
            return false;
        }
    }

    /** BC's CCM takes the whole array as associated data. */
    private static byte[] aad(byte[] aad, int length) {
        return aad.length == length ? aad : java.util.Arrays.copyOf(aad, length);
    }
}
