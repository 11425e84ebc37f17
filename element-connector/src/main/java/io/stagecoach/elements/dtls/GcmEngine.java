package io.stagecoach.elements.dtls;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.modes.GCMModeCipher;
import org.bouncycastle.crypto.modes.gcm.BasicGCMMultiplier;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * AES-GCM (RFC 5288) on BouncyCastle's {@link GCMBlockCipher}. The key (and GHASH's H) is set
 * once; later records pass only the nonce. {@link BasicGCMMultiplier}: no per-key tables (the
 * default keeps 8 KiB per key), which small CoAP records do not repay.
 */
final class GcmEngine implements AeadEngine {

    private final GCMModeCipher gcm = GCMBlockCipher.newInstance(AESEngine.newInstance(), new BasicGCMMultiplier());
    private final int macBits;
    private KeyParameter key;

    GcmEngine(byte[] keyBytes, int keyOff, int keyLen, int tagLength) {
        this.key = new KeyParameter(keyBytes, keyOff, keyLen);
        this.macBits = tagLength * 8;
    }

    private void init(boolean encrypt, byte[] nonce, byte[] aad, int aadLength) {
        gcm.init(encrypt, new AEADParameters(key, macBits, nonce, null));
        key = null; // from now on BC reuses the scheduled key
        gcm.processAADBytes(aad, 0, aadLength);
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, int aadLength, byte[] in, int off, int len, byte[] out, int outOff) {
        init(true, nonce, aad, aadLength);
        int n = gcm.processBytes(in, off, len, out, outOff);
        try {
            gcm.doFinal(out, outOff + n);
        } catch (InvalidCipherTextException e) {
            throw new IllegalStateException("GCM encryption cannot fail", e);
        }
    }

    @Override
    public boolean open(byte[] nonce, byte[] aad, int aadLength, byte[] buf, int off, int len) {
        init(false, nonce, aad, aadLength);
        int n = gcm.processBytes(buf, off, len, buf, off);
        try {
            gcm.doFinal(buf, off + n);
            return true;
        } catch (InvalidCipherTextException e) {
            return false;
        }
    }
}
