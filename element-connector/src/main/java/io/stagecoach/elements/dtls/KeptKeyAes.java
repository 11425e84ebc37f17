package io.stagecoach.elements.dtls;

import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * BouncyCastle's AES engine with one key, scheduled once. BC's CCM initialises its block cipher
 * twice per packet (for CBC-MAC and for CTR), each time expanding the key again; handed this
 * engine with that same {@link KeyParameter}, those initialisations cost nothing. Only the
 * forward direction is offered, which is all CCM and GCM use. This is an adapter, not a cipher:
 * every block is BC's AES.
 */
final class KeptKeyAes implements BlockCipher {

    private final BlockCipher aes = AESEngine.newInstance();
    private final KeyParameter key;

    KeptKeyAes(KeyParameter key) {
        this.key = key;
        aes.init(true, key);
    }

    @Override
    public void init(boolean forEncryption, CipherParameters params) {
        if (!forEncryption || params != key) {
            throw new IllegalArgumentException("this AES engine encrypts with its own key only");
        }
    }

    @Override
    public String getAlgorithmName() {
        return aes.getAlgorithmName();
    }

    @Override
    public int getBlockSize() {
        return aes.getBlockSize();
    }

    @Override
    public int processBlock(byte[] in, int inOff, byte[] out, int outOff) {
        return aes.processBlock(in, inOff, out, outOff);
    }

    @Override
    public void reset() {
        aes.reset();
    }
}
