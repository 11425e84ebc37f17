package io.stagecoach.elements.dtls;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * A {@link CertificateVerifier} over fixed tables: X.509 chains must validate (PKIX, JDK
 * implementation, no revocation checks) up to one of the trust anchors; raw public keys must be
 * in the set of trusted keys, or any key is accepted when built with {@link #trustAnyRawPublicKey}.
 * Answers at once.
 */
public final class TrustStoreVerifier implements CertificateVerifier {

    private final Set<TrustAnchor> anchors;
    /**
     * The trusted keys' SubjectPublicKeyInfo encodings: the peer's key is decoded by another
     * provider than the one that made ours, and keys of different providers hash differently.
     */
    private final Set<ByteBuffer> rawKeys;
    private final boolean anyRawKey;

    private TrustStoreVerifier(Collection<X509Certificate> anchors, Collection<PublicKey> rawKeys, boolean anyRawKey) {
        this.anchors = anchors.stream().map(c -> new TrustAnchor(c, null)).collect(Collectors.toUnmodifiableSet());
        this.rawKeys = rawKeys.stream().map(k -> ByteBuffer.wrap(k.getEncoded())).collect(Collectors.toUnmodifiableSet());
        this.anyRawKey = anyRawKey;
    }

    /** Chains must end at one of {@code anchors}; raw public keys are refused. */
    public static TrustStoreVerifier of(Collection<X509Certificate> anchors) {
        return new TrustStoreVerifier(anchors, List.of(), false);
    }

    /** Chains must end at one of {@code anchors}; raw public keys must be among {@code rawKeys}. */
    public static TrustStoreVerifier of(Collection<X509Certificate> anchors, Collection<PublicKey> rawKeys) {
        return new TrustStoreVerifier(anchors, rawKeys, false);
    }

    /** Accepts every raw public key (the principal then names the key); for tests and onboarding. */
    public static TrustStoreVerifier trustAnyRawPublicKey(Collection<X509Certificate> anchors) {
        return new TrustStoreVerifier(anchors, List.of(), true);
    }

    @Override
    public CompletionStage<Boolean> verifyChain(List<X509Certificate> chain, InetSocketAddress peer) {
        Objects.requireNonNull(chain, "chain");
        if (chain.isEmpty() || anchors.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        try {
            // The path excludes a self-signed root the peer sent along; the anchor stands for it.
            Set<X509Certificate> anchorCerts = new HashSet<>();
            anchors.forEach(a -> anchorCerts.add(a.getTrustedCert()));
            List<X509Certificate> path = chain.stream().filter(c -> !anchorCerts.contains(c)).toList();
            if (path.isEmpty()) {
                return CompletableFuture.completedFuture(true);
            }
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            PKIXParameters params = new PKIXParameters(anchors);
            params.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(factory.generateCertPath(path), params);
            return CompletableFuture.completedFuture(true);
        } catch (GeneralSecurityException e) {
            return CompletableFuture.completedFuture(false);
        }
    }

    @Override
    public CompletionStage<Boolean> verifyRawPublicKey(PublicKey key, InetSocketAddress peer) {
        return CompletableFuture.completedFuture(anyRawKey || rawKeys.contains(ByteBuffer.wrap(key.getEncoded())));
    }
}
