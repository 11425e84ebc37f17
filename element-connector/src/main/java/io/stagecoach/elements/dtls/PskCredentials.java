package io.stagecoach.elements.dtls;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** Client side: the PSK identity and secret this client presents (RFC 4279). */
public final class PskCredentials {

    private final String identity;
    private final byte[] secret;

    private PskCredentials(String identity, byte[] secret) {
        this.identity = Objects.requireNonNull(identity, "identity");
        this.secret = Objects.requireNonNull(secret, "secret").clone();
        if (secret.length == 0) {
            throw new IllegalArgumentException("empty PSK secret");
        }
    }

    public static PskCredentials of(String identity, byte[] secret) {
        return new PskCredentials(identity, secret);
    }

    /** The secret as the UTF-8 bytes of {@code secret}, as libcoap's {@code -k} takes it. */
    public static PskCredentials of(String identity, String secret) {
        return new PskCredentials(identity, secret.getBytes(StandardCharsets.UTF_8));
    }

    public String identity() {
        return identity;
    }

    public byte[] secret() {
        return secret.clone();
    }

    @Override
    public String toString() {
        return "PskCredentials[" + identity + "]";
    }
}
