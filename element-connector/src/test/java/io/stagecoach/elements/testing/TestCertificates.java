package io.stagecoach.elements.testing;

import io.stagecoach.elements.tcp.TlsCredentials;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test PKI made at test time (bcpkix, test scope): a CA, a server certificate for
 * {@code localhost} and {@code 127.0.0.1}, and a client certificate, P-256 keys. {@link #write}
 * stores them as PEM files (certificate chains, PKCS#8 keys) for peers in other processes.
 */
public final class TestCertificates {

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    public final KeyPair caKeys;
    public final X509Certificate ca;
    public final KeyPair serverKeys;
    public final X509Certificate server;
    public final KeyPair clientKeys;
    public final X509Certificate client;

    private TestCertificates() throws Exception {
        caKeys = ecKeyPair();
        ca = certificate("CN=Stagecoach Test CA", caKeys, "CN=Stagecoach Test CA", caKeys, true, false);
        serverKeys = ecKeyPair();
        server = certificate("CN=localhost", serverKeys, "CN=Stagecoach Test CA", caKeys, false, true);
        clientKeys = ecKeyPair();
        client = certificate("CN=test client", clientKeys, "CN=Stagecoach Test CA", caKeys, false, false);
    }

    /** A fresh PKI. */
    public static TestCertificates create() {
        try {
            return new TestCertificates();
        } catch (Exception e) {
            throw new IllegalStateException("cannot make test certificates", e);
        }
    }

    /** The server's identity; with {@code requireClientCertificates} it trusts the CA for clients. */
    public TlsCredentials serverCredentials(boolean requireClientCertificates) {
        return TlsCredentials.of(List.of(server, ca), serverKeys.getPrivate(),
                requireClientCertificates ? List.of(ca) : null);
    }

    /** A client trusting the CA, with or without a certificate of its own. */
    public TlsCredentials clientCredentials(boolean withCertificate) {
        return withCertificate ? TlsCredentials.of(List.of(client, ca), clientKeys.getPrivate(), List.of(ca))
                : TlsCredentials.trusting(List.of(ca));
    }

    /** PEM files in {@code dir}: ca.pem, server.pem (chain), server.key, client.pem (chain), client.key. */
    public void write(Path dir) throws IOException {
        try {
            Files.writeString(dir.resolve("ca.pem"), pem("CERTIFICATE", ca.getEncoded()));
            Files.writeString(dir.resolve("server.pem"), pem("CERTIFICATE", server.getEncoded())
                    + pem("CERTIFICATE", ca.getEncoded()));
            Files.writeString(dir.resolve("server.key"), pem("PRIVATE KEY", serverKeys.getPrivate().getEncoded()));
            Files.writeString(dir.resolve("client.pem"), pem("CERTIFICATE", client.getEncoded())
                    + pem("CERTIFICATE", ca.getEncoded()));
            Files.writeString(dir.resolve("client.key"), pem("PRIVATE KEY", clientKeys.getPrivate().getEncoded()));
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IOException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static KeyPair ecKeyPair() throws Exception {
        // BC's provider: its PKCS#8 encoding carries the public key, which GnuTLS requires
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC", new org.bouncycastle.jce.provider.BouncyCastleProvider());
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static X509Certificate certificate(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
            boolean ca, boolean serverNames) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name(issuer),
                BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(Duration.ofDays(30))), new X500Name(subject), subjectKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (serverNames) {
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        }
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }
}
