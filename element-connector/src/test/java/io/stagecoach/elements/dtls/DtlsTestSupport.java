package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Keys, certificates, connectors and a receive queue for the DTLS tests. */
final class DtlsTestSupport {

    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final long TIMEOUT_S = 20;

    private DtlsTestSupport() {
    }

    /** A P-256 key pair from the JDK. */
    static KeyPair ecKeyPair() throws Exception {
        // BC's provider: its PKCS#8 encoding carries the public key, which GnuTLS requires
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC", new org.bouncycastle.jce.provider.BouncyCastleProvider());
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    /** A CA and a leaf it signed, made at test time (bcpkix, test scope only). */
    record Pki(KeyPair caKeys, X509Certificate ca, KeyPair leafKeys, X509Certificate leaf) {
        CertificateCredentials credentials() {
            return CertificateCredentials.x509(leafKeys.getPrivate(), java.util.List.of(leaf, ca));
        }
    }

    static Pki pki(String leafName) throws Exception {
        KeyPair caKeys = ecKeyPair();
        // a CA name per PKI: OpenSSL picks chain certificates by issuer name
        String caName = "CN=Test CA of " + leafName.substring(3);
        X509Certificate ca = certificate(caName, caKeys, caName, caKeys, true);
        KeyPair leafKeys = ecKeyPair();
        X509Certificate leaf = certificate(leafName, leafKeys, caName, caKeys, false);
        return new Pki(caKeys, ca, leafKeys, leaf);
    }

    static X509Certificate certificate(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
            boolean ca) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name(issuer),
                BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(Duration.ofDays(30))), new X500Name(subject), subjectKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }

    static DtlsConnectorConfig.Builder pskServer() {
        return DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).bindAddress(LOOPBACK)
                .pskStore(PskStore.of("client1", "secretPSK"));
    }

    static DtlsConnectorConfig.Builder pskClient() {
        return DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT).bindAddress(LOOPBACK)
                .pskCredentials(PskCredentials.of("client1", "secretPSK"));
    }

    /** Collects delivered datagrams. */
    static final class Inbox {
        final BlockingQueue<RawData> queue = new LinkedBlockingQueue<>();

        void attach(Connector c) {
            c.setRawDataReceiver(queue::add);
        }

        RawData take() throws InterruptedException {
            RawData d = queue.poll(TIMEOUT_S, TimeUnit.SECONDS);
            if (d == null) {
                throw new AssertionError("no datagram within " + TIMEOUT_S + " s");
            }
            return d;
        }
    }

    /** A server receiver that echoes every datagram back with "echo:" in front. */
    static void echo(Connector server) {
        server.setRawDataReceiver(d -> {
            byte[] in = d.bytes();
            byte[] out = new byte[in.length + 5];
            System.arraycopy("echo:".getBytes(), 0, out, 0, 5);
            System.arraycopy(in, 0, out, 5, in.length);
            server.send(RawData.outbound(out, EndpointContext.of(d.context().peer()), null));
        });
    }

    /** Sends and returns a future of the callback's outcome. */
    static CompletableFuture<Void> send(Connector c, InetSocketAddress to, byte[] payload) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        c.send(RawData.outbound(payload, EndpointContext.of(to), new SendCallback() {
            @Override
            public void onSent() {
                f.complete(null);
            }

            @Override
            public void onFailed(Throwable cause) {
                f.completeExceptionally(cause);
            }
        }));
        return f;
    }
}
