package io.stagecoach.elements.dtls;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.bouncycastle.crypto.ExtendedDigest;

/**
 * BouncyCastle's {@code Digest} view of the JDK's SHA-256 ({@link MessageDigest}), which the JVM
 * runs with the processor's SHA instructions where it has them; BouncyCastle's own
 * {@code SHA256Digest} is plain Java. Handed to BouncyCastle's TLS code by {@link DtlsCrypto} for
 * the handshake hash, the PRF's HMAC (RFC 5246 §5) and HMAC-SHA256 record MACs: the hash itself is
 * the JDK's, this class only adapts the calls.
 */
final class JdkSha256 implements ExtendedDigest {

    private static final MessageDigest PROTOTYPE = newSha256();
    private static final int BLOCK_LENGTH = 64;
    private static final int LENGTH = 32;

    private final MessageDigest md;

    JdkSha256() {
        this(PROTOTYPE);
    }

    private JdkSha256(MessageDigest from) {
        try {
            this.md = (MessageDigest) from.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA-256 is cloneable", e);
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /** An independent copy of the current state (BouncyCastle forks the handshake hash). */
    JdkSha256 copy() {
        return new JdkSha256(md);
    }

    @Override
    public String getAlgorithmName() {
        return "SHA-256";
    }

    @Override
    public int getDigestSize() {
        return LENGTH;
    }

    @Override
    public int getByteLength() {
        return BLOCK_LENGTH;
    }

    @Override
    public void update(byte in) {
        md.update(in);
    }

    @Override
    public void update(byte[] in, int inOff, int len) {
        md.update(in, inOff, len);
    }

    @Override
    public int doFinal(byte[] out, int outOff) {
        try {
            return md.digest(out, outOff, LENGTH);
        } catch (DigestException e) {
            throw new IllegalArgumentException("no room for the digest at " + outOff, e);
        }
    }

    @Override
    public void reset() {
        md.reset();
    }
}
