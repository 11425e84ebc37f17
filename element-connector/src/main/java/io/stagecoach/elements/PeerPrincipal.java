package io.stagecoach.elements;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Principal;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;

/**
 * Who the peer of a request proved to be in its DTLS handshake (RFC 7252 §9.1.3): the identity
 * of its pre-shared key, the subject of its X.509 certificate, or its raw public key (RFC 7250).
 * Immutable; equal when kind and name are. A handler reads it with
 * {@code CoapExchange.principal()} to authorize:
 *
 * <pre>{@code
 * if (!ex.principal().map(p -> p.equals(PeerPrincipal.psk("sensor-1"))).orElse(false)) {
 *     ex.respond(Code.FORBIDDEN);
 *     return;
 * }
 * }</pre>
 *
 * <p>Requests over plain UDP, TCP or WebSockets, and DTLS clients a server did not ask for a
 * certificate (with ECDHE_ECDSA and no client authentication), have none. A connector that
 * authenticates its peers (DTLS) puts it on the {@link EndpointContext} of every datagram it
 * delivers, under {@link #CONTEXT_KEY}; a client reads the server's the same way with
 * {@link #of(EndpointContext)}.
 */
public final class PeerPrincipal implements Principal {

    /** How the peer authenticated. */
    public enum Kind {
        /** A pre-shared key; the name is the PSK identity (RFC 4279 §5.1, UTF-8). */
        PSK,
        /** An X.509 certificate chain; the name is the leaf's subject (RFC 2253 form). */
        X509,
        /** A raw public key (RFC 7250); the name is {@code rpk:} and the base64 SubjectPublicKeyInfo. */
        RAW_PUBLIC_KEY
    }

    /** The context attribute an authenticating connector sets. */
    public static final EndpointContext.Key<Principal> CONTEXT_KEY =
            new EndpointContext.Key<>("dtls.principal", Principal.class);

    private static final String RPK_PREFIX = "rpk:";

    private final Kind kind;
    private final String name;

    private PeerPrincipal(Kind kind, String name) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** A PSK identity, as a table of permissions names it. */
    public static PeerPrincipal psk(String identity) {
        return new PeerPrincipal(Kind.PSK, identity);
    }

    /** A certificate subject in RFC 2253 form, e.g. {@code CN=sensor-1,O=Example}. */
    public static PeerPrincipal x509(String subject) {
        return new PeerPrincipal(Kind.X509, new X500Principal(subject).getName());
    }

    /** A raw public key. */
    public static PeerPrincipal rawPublicKey(PublicKey key) {
        return new PeerPrincipal(Kind.RAW_PUBLIC_KEY, RPK_PREFIX + Base64.getEncoder().encodeToString(key.getEncoded()));
    }

    /**
     * The principal a connector put on {@code context}, or empty. A plain {@link X500Principal}
     * (e.g. from a custom connector's {@code SSLSession}) is read as an X.509 subject.
     */
    public static Optional<PeerPrincipal> of(EndpointContext context) {
        Principal p = context.attribute(CONTEXT_KEY);
        if (p instanceof PeerPrincipal known) {
            return Optional.of(known);
        }
        return p instanceof X500Principal x ? Optional.of(x509(x.getName())) : Optional.empty();
    }

    public Kind kind() {
        return kind;
    }

    /** The PSK identity, the certificate subject, or {@code rpk:<base64>} (see {@link Kind}). */
    public String name() {
        return name;
    }

    /** The same as {@link #name()}. */
    @Override
    public String getName() {
        return name;
    }

    /** For {@link Kind#RAW_PUBLIC_KEY}: the key (EC, Ed25519 or RSA); otherwise empty. */
    public Optional<PublicKey> rawPublicKey() {
        if (kind != Kind.RAW_PUBLIC_KEY || !name.startsWith(RPK_PREFIX)) {
            return Optional.empty();
        }
        X509EncodedKeySpec spki;
        try {
            spki = new X509EncodedKeySpec(Base64.getDecoder().decode(name.substring(RPK_PREFIX.length())));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        for (String algorithm : new String[] {"EC", "Ed25519", "RSA"}) {
            try {
                return Optional.of(KeyFactory.getInstance(algorithm).generatePublic(spki));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerPrincipal p && p.kind == kind && p.name.equals(name);
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
