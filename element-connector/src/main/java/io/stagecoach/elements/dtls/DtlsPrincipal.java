package io.stagecoach.elements.dtls;

import java.security.Principal;
import java.security.PublicKey;
import java.util.Base64;
import java.util.Objects;

/**
 * Who the peer proved to be in the handshake, as {@link DtlsContextKeys#PRINCIPAL} carries it:
 * a PSK identity, the subject of an X.509 leaf certificate, or a raw public key (named
 * {@code rpk:<base64 of SubjectPublicKeyInfo>}).
 */
public final class DtlsPrincipal implements Principal {

    /** How the peer authenticated. */
    public enum Kind { PSK, X509, RAW_PUBLIC_KEY }

    private final Kind kind;
    private final String name;

    private DtlsPrincipal(Kind kind, String name) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.name = Objects.requireNonNull(name, "name");
    }

    public static DtlsPrincipal psk(String identity) {
        return new DtlsPrincipal(Kind.PSK, identity);
    }

    /** @param subject the RFC 2253 subject name of the leaf certificate */
    public static DtlsPrincipal x509(String subject) {
        return new DtlsPrincipal(Kind.X509, subject);
    }

    public static DtlsPrincipal rawPublicKey(PublicKey key) {
        return new DtlsPrincipal(Kind.RAW_PUBLIC_KEY, "rpk:" + Base64.getEncoder().encodeToString(key.getEncoded()));
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DtlsPrincipal p && p.kind == kind && p.name.equals(name);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + name.hashCode();
    }

    @Override
    public String toString() {
        return kind + ":" + name;
    }
}
