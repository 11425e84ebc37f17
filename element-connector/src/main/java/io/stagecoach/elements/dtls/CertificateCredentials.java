package io.stagecoach.elements.dtls;

import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * This side's own key and what it shows the peer: an X.509 chain (leaf first) or only the public
 * key (raw public key, RFC 7250). Plain JCA types; the key must be an EC key on P-256 for the
 * ECDSA cipher suites of RFC 7252 §9.
 */
public final class CertificateCredentials {

    private final PrivateKey privateKey;
    private final List<X509Certificate> chain;
    private final PublicKey publicKey;

    private CertificateCredentials(PrivateKey privateKey, List<X509Certificate> chain, PublicKey publicKey) {
        this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
        this.chain = chain;
        this.publicKey = Objects.requireNonNull(publicKey, "publicKey");
        if (privateKey.getEncoded() == null) {
            throw new IllegalArgumentException("the private key cannot be exported (PKCS#8): " + privateKey);
        }
    }

    /** An X.509 chain, leaf first; the private key belongs to the leaf. */
    public static CertificateCredentials x509(PrivateKey privateKey, List<X509Certificate> chain) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("empty certificate chain");
        }
        return new CertificateCredentials(privateKey, List.copyOf(chain), chain.get(0).getPublicKey());
    }

    /** A raw public key (RFC 7250). */
    public static CertificateCredentials rawPublicKey(PrivateKey privateKey, PublicKey publicKey) {
        return new CertificateCredentials(privateKey, List.of(), publicKey);
    }

    public boolean isRawPublicKey() {
        return chain.isEmpty();
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The chain, leaf first; empty for a raw public key. */
    public List<X509Certificate> chain() {
        return chain;
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    @Override
    public String toString() {
        return isRawPublicKey() ? "RawPublicKey[" + publicKey.getAlgorithm() + "]"
                : "X509[" + chain.get(0).getSubjectX500Principal() + "]";
    }
}
