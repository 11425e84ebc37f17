package io.stagecoach.elements.tcp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a TLS connection (coaps+tcp, coaps+ws) proves and trusts, for the JDK's TLS 1.3 and 1.2:
 * an X.509 certificate chain with its private key (a server's identity, optional for a client),
 * and the certificates to trust for the peer (a server asks for and verifies client
 * certificates when it has them; a client without them uses the JDK's default trust store).
 *
 * <pre>{@code
 * TlsCredentials server = TlsCredentials.fromPem(Path.of("cert.pem"), Path.of("key.pem"), null);
 * TlsCredentials client = TlsCredentials.trusting(List.of(caCertificate));
 * }</pre>
 */
public final class TlsCredentials {

    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private final List<X509Certificate> chain;
    private final PrivateKey key;
    private final List<X509Certificate> trusted;
    private final boolean verifyHostname;

    private TlsCredentials(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted,
            boolean verifyHostname) {
        this.chain = List.copyOf(chain);
        this.key = key;
        this.trusted = trusted == null ? null : List.copyOf(trusted);
        this.verifyHostname = verifyHostname;
    }

    /**
     * An identity (certificate chain, leaf first, and its private key) and optionally the
     * certificates to trust for the peer ({@code null}: a server asks for no client certificate,
     * a client trusts the JDK's default store).
     */
    public static TlsCredentials of(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a certificate chain needs at least one certificate");
        }
        return new TlsCredentials(chain, Objects.requireNonNull(key, "key"), trusted, true);
    }

    /** No identity; trusts {@code trusted} (a client of a server with a private CA). */
    public static TlsCredentials trusting(List<X509Certificate> trusted) {
        return new TlsCredentials(List.of(), null, Objects.requireNonNull(trusted, "trusted"), true);
    }

    /** No identity; trusts the JDK's default store (a client of a server with a public certificate). */
    public static TlsCredentials systemTrust() {
        return new TlsCredentials(List.of(), null, null, true);
    }

    /**
     * Reads PEM files: {@code certChain} with one or more CERTIFICATE blocks (leaf first),
     * {@code key} with a PKCS#8 PRIVATE KEY block (RSA, EC, Ed25519 or Ed448), and optionally
     * {@code ca} with the CERTIFICATE blocks to trust for the peer.
     *
     * @param key {@code null} for a client without a certificate (then {@code certChain} is
     *     ignored and may be {@code null} too)
     * @throws IOException when a file cannot be read or parsed
     */
    public static TlsCredentials fromPem(Path certChain, Path key, Path ca) throws IOException {
        List<X509Certificate> trusted = ca == null ? null : readCertificates(ca);
        if (key == null) {
            return new TlsCredentials(List.of(), null, trusted, true);
        }
        List<X509Certificate> chain = readCertificates(Objects.requireNonNull(certChain, "certChain"));
        if (chain.isEmpty()) {
            throw new IOException("no CERTIFICATE block in " + certChain);
        }
        return new TlsCredentials(chain, readKey(key), trusted, true);
    }

    /**
     * A copy that does or does not check, as a client, that the server's certificate names the
     * host connected to (default: it does; the host is the destination's address or name).
     */
    public TlsCredentials verifyHostname(boolean verify) {
        return new TlsCredentials(chain, key, trusted, verify);
    }

    /** The certificate chain, leaf first; empty without an identity. */
    public List<X509Certificate> chain() {
        return chain;
    }

    /** The private key, or {@code null} without an identity. */
    public PrivateKey key() {
        return key;
    }

    /** The certificates trusted for the peer, or {@code null} (see {@link #of}). */
    public List<X509Certificate> trusted() {
        return trusted;
    }

    /** Whether a client checks the server's certificate against the host it connected to. */
    public boolean verifiesHostname() {
        return verifyHostname;
    }

    /** The CERTIFICATE blocks of a PEM file. */
    public static List<X509Certificate> readCertificates(Path pem) throws IOException {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (byte[] der : blocks(pem, "CERTIFICATE")) {
                out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read certificates from " + pem + ": " + e.getMessage(), e);
        }
        return out;
    }

    /** The PKCS#8 PRIVATE KEY of a PEM file. */
    public static PrivateKey readKey(Path pem) throws IOException {
        List<byte[]> der = blocks(pem, "PRIVATE KEY");
        if (der.isEmpty()) {
            throw new IOException("no PKCS#8 PRIVATE KEY block in " + pem
                    + " (convert with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der.get(0));
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IOException("the key in " + pem + " is not an RSA, EC, Ed25519 or Ed448 PKCS#8 key");
    }

    private static List<byte[]> blocks(Path pem, String type) throws IOException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        List<byte[]> out = new ArrayList<>();
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(type)) {
                try {
                    out.add(Base64.getMimeDecoder().decode(m.group(2)));
                } catch (IllegalArgumentException e) {
                    throw new IOException("bad base64 in a " + type + " block of " + pem, e);
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "TlsCredentials[" + (chain.isEmpty() ? "no identity" : chain.get(0).getSubjectX500Principal().getName())
                + ", trusted=" + (trusted == null ? "default" : trusted.size() + " certificates") + "]";
    }
}
