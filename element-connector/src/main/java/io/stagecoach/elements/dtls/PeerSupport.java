package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateType;
import org.bouncycastle.tls.TlsFatalAlert;

/** Pieces both handshake peers use. */
final class PeerSupport {

    private PeerSupport() {
    }

    static int[] codes(List<DtlsCipherSuite> suites) {
        int[] codes = new int[suites.size()];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = suites.get(i).code();
        }
        return codes;
    }

    /**
     * Waits on the handshake thread for {@code stage}, at most {@code timeoutMillis}.
     *
     * @throws TlsFatalAlert {@code internal_error} if it fails or is late
     */
    static <T> T await(CompletionStage<T> stage, long timeoutMillis) throws TlsFatalAlert {
        try {
            return stage.toCompletableFuture().get(Math.max(1, timeoutMillis), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TlsFatalAlert(AlertDescription.internal_error, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new TlsFatalAlert(AlertDescription.internal_error, e);
        }
    }

    /** Asks the verifier about the peer's chain or raw key; throws {@code bad_certificate} unless trusted. */
    static void verify(CertificateVerifier verifier, Certificate certificate, InetSocketAddress peer,
            long timeoutMillis) throws IOException {
        if (certificate == null || certificate.isEmpty()) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "no certificate");
        }
        CompletionStage<Boolean> stage = certificate.getCertificateType() == CertificateType.RawPublicKey
                ? verifier.verifyRawPublicKey(BcCredentials.rawPublicKey(certificate), peer)
                : verifier.verifyChain(BcCredentials.x509Chain(certificate), peer);
        Boolean trusted;
        try {
            trusted = await(stage, timeoutMillis);
        } catch (TlsFatalAlert e) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "verification failed", e);
        }
        if (!Boolean.TRUE.equals(trusted)) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "certificate not trusted");
        }
    }
}
