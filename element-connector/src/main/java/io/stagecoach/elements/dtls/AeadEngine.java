package io.stagecoach.elements.dtls;

/**
 * One direction of an AEAD cipher with its key set: the primitive under a record protection.
 * Instances keep scratch state between calls and are not thread-safe; the session's read or
 * write lock guards each.
 */
interface AeadEngine {

    /** Encrypts {@code len} bytes at {@code off} into {@code out} (ciphertext then tag). */
    void seal(byte[] nonce, byte[] aad, int aadLength, byte[] in, int off, int len, byte[] out, int outOff);

    /**
     * Decrypts {@code len} bytes (ciphertext then tag) in place.
     *
     * @return whether the tag verified; if not, the bytes are garbage and must be dropped
     */
    boolean open(byte[] nonce, byte[] aad, int aadLength, byte[] buf, int off, int len);
}
