package io.stagecoach.elements.dtls;

import io.stagecoach.elements.PeerPrincipal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Vector;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateType;
import org.bouncycastle.tls.HashAlgorithm;
import org.bouncycastle.tls.SignatureAlgorithm;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsContext;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.crypto.TlsCertificate;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsRawKeyCertificate;

/** Converts between the JCA types of the public API and BouncyCastle's TLS types. */
final class BcCredentials {

    private static final SignatureAndHashAlgorithm ECDSA_SHA256 =
            new SignatureAndHashAlgorithm(HashAlgorithm.sha256, SignatureAlgorithm.ecdsa);

    private final BcTlsCrypto crypto;
    private final AsymmetricKeyParameter privateKey;
    private final Certificate certificate;

    /** @param credentials this side's key and chain or raw key */
    public BcCredentials(BcTlsCrypto crypto, CertificateCredentials credentials) throws IOException {
        this.crypto = crypto;
        this.privateKey = PrivateKeyFactory.createKey(credentials.privateKey().getEncoded());
        if (credentials.isRawPublicKey()) {
            this.certificate = new Certificate(CertificateType.RawPublicKey, new TlsCertificate[] {
                new BcTlsRawKeyCertificate(crypto, credentials.publicKey().getEncoded())});
        } else {
            List<X509Certificate> chain = credentials.chain();
            TlsCertificate[] list = new TlsCertificate[chain.size()];
            for (int i = 0; i < list.length; i++) {
                try {
                    list[i] = crypto.createCertificate(chain.get(i).getEncoded());
                } catch (GeneralSecurityException e) {
                    throw new IOException("cannot encode certificate " + i, e);
                }
            }
            this.certificate = new Certificate(list);
        }
    }

    public boolean isRawPublicKey() {
        return certificate.getCertificateType() == CertificateType.RawPublicKey;
    }

    /**
     * A signer for this handshake, with ECDSA and the first hash the peer offers among SHA-256,
     * SHA-384, SHA-512 (SHA-256 when it sent no list).
     */
    public TlsCredentialedSigner signer(TlsContext context, Vector<?> peerSigAlgs) {
        SignatureAndHashAlgorithm chosen = ECDSA_SHA256;
        if (peerSigAlgs != null) {
            chosen = null;
            for (Object o : peerSigAlgs) {
                SignatureAndHashAlgorithm alg = (SignatureAndHashAlgorithm) o;
                if (alg.getSignature() == SignatureAlgorithm.ecdsa && (alg.getHash() == HashAlgorithm.sha256
                        || alg.getHash() == HashAlgorithm.sha384 || alg.getHash() == HashAlgorithm.sha512)) {
                    chosen = alg;
                    break;
                }
            }
            if (chosen == null) {
                return null;
            }
        }
        return new BcDefaultTlsCredentialedSigner(new TlsCryptoParameters(context), crypto, privateKey, certificate,
                chosen);
    }

    /** The peer's X.509 chain as JCA certificates, leaf first. */
    public static List<X509Certificate> x509Chain(Certificate certificate) throws IOException {
        List<X509Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (int i = 0; i < certificate.getLength(); i++) {
                chain.add((X509Certificate) factory.generateCertificate(
                        new ByteArrayInputStream(certificate.getCertificateAt(i).getEncoded())));
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("peer certificate cannot be parsed", e);
        }
        return chain;
    }

    /** The peer's raw public key (RFC 7250) as a JCA key. */
    public static PublicKey rawPublicKey(Certificate certificate) throws IOException {
        byte[] spki = certificate.getCertificateAt(0).getEncoded();
        for (String algorithm : new String[] {"EC", "Ed25519", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(spki));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IOException("raw public key of unknown algorithm");
    }

    /** The principal a verified peer certificate stands for. */
    public static PeerPrincipal principalOf(Certificate certificate) throws IOException {
        if (certificate.getCertificateType() == CertificateType.RawPublicKey) {
            return PeerPrincipal.rawPublicKey(rawPublicKey(certificate));
        }
        return PeerPrincipal.x509(x509Chain(certificate).get(0).getSubjectX500Principal().getName());
    }
}
