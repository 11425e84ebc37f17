package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.security.SecureRandom;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.tls.crypto.CryptoHashAlgorithm;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * BouncyCastle's crypto, plus: when a handshake creates the cipher of its next epoch, the
 * {@link RecordProtection} this connector uses once the handshake is over is made from the same
 * parameters at the same moment (BC's own cipher serves the handshake's Finished messages only).
 * It is handed over through the handshake thread: the peer's {@code notifyHandshakeComplete}
 * (same thread, same handshake) {@linkplain #takeProtection takes} it.
 *
 * <p>BC's cipher for the handshake is wrapped in a {@link ScreeningCipher}: a decrypted handshake
 * record announcing an oversized message is dropped before BC 1.84 allocates for it.
 *
 * <p>SHA-256 (the handshake hash, the TLS 1.2 PRF's HMAC, HMAC-SHA256 record MACs) is the JDK's
 * ({@link JdkSha256}), which runs on the processor's SHA instructions where there are any: a
 * handshake profile spent more time in BouncyCastle's Java SHA-256 than in any other method.
 */
final class DtlsCrypto extends BcTlsCrypto {

    private static final ThreadLocal<RecordProtection> PENDING = new ThreadLocal<>();

    private final Runnable onRefusedRecord;

    /** A crypto whose screen refuses records without telling anyone (cookie checks, warm-up). */
    public DtlsCrypto(SecureRandom random) {
        this(random, () -> { });
    }

    /**
     * @param onRefusedRecord run for every encrypted handshake record the {@link ScreeningCipher}
     *     refuses (on the handshake thread)
     */
    public DtlsCrypto(SecureRandom random, Runnable onRefusedRecord) {
        super(random);
        this.onRefusedRecord = onRefusedRecord;
    }

    @Override
    public Digest createDigest(int cryptoHashAlgorithm) {
        return cryptoHashAlgorithm == CryptoHashAlgorithm.sha256 ? new JdkSha256()
                : super.createDigest(cryptoHashAlgorithm);
    }

    @Override
    public Digest cloneDigest(int cryptoHashAlgorithm, Digest digest) {
        return digest instanceof JdkSha256 ? ((JdkSha256) digest).copy() : super.cloneDigest(cryptoHashAlgorithm, digest);
    }

    @Override
    public TlsCipher createCipher(TlsCryptoParameters params, int encryptionAlgorithm, int macAlgorithm)
            throws IOException {
        TlsCipher forHandshake = new ScreeningCipher(super.createCipher(params, encryptionAlgorithm, macAlgorithm),
                onRefusedRecord);
        RecordProtection ours = AeadProtection.supports(encryptionAlgorithm)
                ? AeadProtection.derive(params, encryptionAlgorithm)
                : new BcCipherProtection(super.createCipher(params, encryptionAlgorithm, macAlgorithm),
                        params.getSecurityParametersHandshake().getConnectionIDLocal());
        PENDING.set(ours);
        return forHandshake;
    }

    /** The protection the current thread's handshake created, or {@code null}; clears it. */
    public static RecordProtection takeProtection() {
        RecordProtection p = PENDING.get();
        PENDING.remove();
        return p;
    }
}
