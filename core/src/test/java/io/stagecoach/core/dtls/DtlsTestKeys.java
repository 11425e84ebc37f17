package io.stagecoach.core.dtls;

import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.dtls.PskStore;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.testing.TestCertificates;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import java.util.Map;

/** Credentials for the coaps tests: PSK identities, a test PKI, raw key pairs. */
final class DtlsTestKeys {

    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final byte[] SECRET = "secretPSK".getBytes(StandardCharsets.UTF_8);

    /** The server knows two identities: sensor-1 and admin. */
    static final PskStore PSK_STORE = PskStore.of(Map.of("sensor-1", SECRET,
            "admin", "adminPSK".getBytes(StandardCharsets.UTF_8)));

    static final TestCertificates PKI = TestCertificates.create();

    private DtlsTestKeys() {
    }

    static PskCredentials sensor() {
        return PskCredentials.of("sensor-1", SECRET);
    }

    static PskCredentials admin() {
        return PskCredentials.of("admin", "adminPSK");
    }

    static CertificateCredentials serverCertificate() {
        return CertificateCredentials.x509(PKI.serverKeys.getPrivate(), List.of(PKI.server, PKI.ca));
    }

    static CertificateCredentials clientCertificate() {
        return CertificateCredentials.x509(PKI.clientKeys.getPrivate(), List.of(PKI.client, PKI.ca));
    }

    static TrustStoreVerifier trustingTheCa() {
        return TrustStoreVerifier.of(List.of(PKI.ca));
    }

    /** A P-256 key pair (BC's provider: its PKCS#8 encoding carries the public key). */
    static KeyPair ecKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC",
                    new org.bouncycastle.jce.provider.BouncyCastleProvider());
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
