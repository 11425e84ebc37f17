package io.stagecoach.elements.dtls;

import java.net.InetSocketAddress;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether the peer's certificate chain or raw public key is trusted. Asynchronous so that
 * the decision may ask a registry; the handshake thread of that handshake waits for the stage (at
 * most until the handshake timeout), the receive thread never does. See
 * {@link TrustStoreVerifier} for a table-based implementation.
 */
public interface CertificateVerifier {

    /**
     * @param chain the peer's X.509 chain, leaf first (already parsed; its signatures were not
     *              checked yet)
     * @return a stage completing with {@code true} to accept; {@code false} or an exceptional
     *     completion fails the handshake with {@code bad_certificate}
     */
    CompletionStage<Boolean> verifyChain(List<X509Certificate> chain, InetSocketAddress peer);

    /** @return a stage completing with {@code true} to accept the raw public key (RFC 7250) */
    CompletionStage<Boolean> verifyRawPublicKey(PublicKey key, InetSocketAddress peer);
}
