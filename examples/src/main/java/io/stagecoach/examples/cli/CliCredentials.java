package io.stagecoach.examples.cli;

import io.stagecoach.elements.dtls.CertificateCredentials;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.dtls.PskStore;
import io.stagecoach.elements.dtls.TrustStoreVerifier;
import io.stagecoach.elements.tcp.TlsCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The command lines' credentials, from PEM files and flags: libcoap's {@code -u}/{@code -k} (PSK),
 * {@code -c}/{@code -j}/{@code -C} (certificate chain, PKCS#8 key, trusted issuers) for the client,
 * {@code --psk}/{@code --cert}/{@code --key}/{@code --ca} for the server. The same files serve DTLS
 * (coaps) and TLS (coaps+tcp, coaps+ws). A file that cannot be read fails with its name and why.
 */
final class CliCredentials {

    private CliCredentials() {
    }

    /**
     * What {@code ./stagecoach client} proves and trusts over DTLS. PSK and certificates may be
     * given together (the server picks a suite). The server's certificate or raw key is checked
     * against {@code -C}; without it only PSK suites are offered.
     *
     * @throws IllegalArgumentException when neither PSK nor {@code -C} is given, or a file is bad
     */
    static Consumer<DtlsConnectorConfig.Builder> dtlsClient(ClientOptions o) {
        if (o.pskIdentity == null && o.ca == null) {
            throw new IllegalArgumentException("coaps needs credentials: -u IDENTITY -k KEY (PSK), or -C CAFILE"
                    + " to check the server's certificate (with -c CERT -j KEY for one of ours)");
        }
        if (o.cert != null && o.ca == null) {
            throw new IllegalArgumentException("coaps with -c needs -C CAFILE to check the server's certificate");
        }
        PskCredentials psk = o.pskIdentity == null ? null : PskCredentials.of(o.pskIdentity, o.pskKey);
        TrustStoreVerifier verifier = o.ca == null ? null : TrustStoreVerifier.of(read(() -> TlsCredentials.readCertificates(o.ca)));
        CertificateCredentials own = o.cert == null ? null : certificate(o.cert, o.key != null ? o.key : o.cert);
        // A wrong key shows as a handshake that never finishes: give up on it at 3/4 of the command's
        // wait (-B), so that it is reported as such and not as a plain timeout; at most the default 30 s.
        Duration handshake = Duration.ofMillis(Math.max(100, Math.min(o.timeout.toMillis() * 3 / 4, 30_000)));
        return d -> {
            if (psk != null) {
                d.pskCredentials(psk);
            }
            if (verifier != null) {
                d.certificateVerifier(verifier);
            }
            if (own != null) {
                d.certificateCredentials(own);
            }
            d.handshakeTimeout(handshake);
        };
    }

    /** What the client proves and trusts over TLS: {@code -C} or the JDK's store, {@code -c}/{@code -j}. */
    static TlsCredentials tlsClient(ClientOptions o) {
        if (o.pskIdentity != null) {
            throw new IllegalArgumentException("-u/-k (PSK) are for coaps (DTLS); coaps+tcp and coaps+ws use certificates");
        }
        if (o.cert == null && o.ca == null) {
            return TlsCredentials.systemTrust();
        }
        return read(() -> TlsCredentials.fromPem(o.cert, o.cert == null ? null : o.key != null ? o.key : o.cert, o.ca));
    }

    /**
     * What {@code ./stagecoach server --dtls-port} proves and accepts: the {@code --psk} table, the
     * {@code --cert}/{@code --key} identity, and with {@code --ca} client certificates, required of
     * clients that authenticate by certificate (PSK clients are never asked).
     */
    static Consumer<DtlsConnectorConfig.Builder> dtlsServer(ServerOptions o) {
        PskStore psk = o.psk.isEmpty() ? null : PskStore.of(o.psk);
        CertificateCredentials own = o.cert == null ? null : certificate(o.cert, o.key);
        TrustStoreVerifier clients = o.ca == null ? null : TrustStoreVerifier.of(read(() -> TlsCredentials.readCertificates(o.ca)));
        return d -> {
            if (psk != null) {
                d.pskStore(psk);
            }
            if (own != null) {
                d.certificateCredentials(own);
            }
            if (clients != null) {
                d.certificateVerifier(clients).clientAuth(DtlsConnectorConfig.ClientAuth.NEEDED);
            }
        };
    }

    /** A PEM certificate chain (leaf first) and its PKCS#8 key, for DTLS. */
    static CertificateCredentials certificate(Path chain, Path key) {
        List<java.security.cert.X509Certificate> certificates = read(() -> TlsCredentials.readCertificates(chain));
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("no CERTIFICATE block in " + chain);
        }
        return CertificateCredentials.x509(read(() -> TlsCredentials.readKey(key)), certificates);
    }

    private interface Reader<T> {
        T read() throws IOException;
    }

    private static <T> T read(Reader<T> reader) {
        try {
            return reader.read();
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
