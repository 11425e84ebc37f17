package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.security.SecureRandom;
import org.bouncycastle.tls.crypto.TlsCipher;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * BouncyCastle's crypto, plus: when a handshake creates the cipher of its next epoch, the
 * {@link RecordProtection} this connector uses once the handshake is over is made from the same
 * parameters at the same moment (BC's own cipher serves the handshake's Finished messages only).
 * It is handed over through the handshake thread: the peer's {@code notifyHandshakeComplete}
 * (same thread, same handshake) {@linkplain #takeProtection takes} it.
 */
final class DtlsCrypto extends BcTlsCrypto {

    private static final ThreadLocal<RecordProtection> PENDING = new ThreadLocal<>();

    public DtlsCrypto(SecureRandom random) {
        super(random);
    }

    @Override
    public TlsCipher createCipher(TlsCryptoParameters params, int encryptionAlgorithm, int macAlgorithm)
            throws IOException {
        TlsCipher forHandshake = super.createCipher(params, encryptionAlgorithm, macAlgorithm);
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
