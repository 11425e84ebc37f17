package io.stagecoach.elements.dtls;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Server side: finds the pre-shared key of a PSK identity (RFC 4279). Asynchronous, so that the
 * answer may come from a registry over the network: the connector starts the lookup on its
 * receive thread as soon as it reads the identity from the client's ClientKeyExchange, holds that
 * flight until the stage completes, and only then lets the handshake continue. No thread waits
 * for the answer (see {@code docs/dtls.md} for the one case that does).
 *
 * <p>Implementations must not block in {@link #secretFor}; they must complete the stage, at the
 * latest, within the handshake timeout.
 */
@FunctionalInterface
public interface PskStore {

    /**
     * @param identity the identity the client named (UTF-8 as sent; RFC 4279 §5.1)
     * @param peer     the client's address, for logging or per-network policies
     * @return a stage completing with the secret, or with {@code null} when the identity is
     *     unknown (the handshake then fails with {@code unknown_psk_identity}); an exceptional
     *     completion fails the handshake too
     */
    CompletionStage<byte[]> secretFor(String identity, InetSocketAddress peer);

    /** A fixed table, answered at once; the map is copied. */
    static PskStore of(Map<String, byte[]> secrets) {
        Map<String, byte[]> copy = new HashMap<>();
        secrets.forEach((k, v) -> copy.put(k, v.clone()));
        return (identity, peer) -> {
            byte[] secret = copy.get(identity);
            return CompletableFuture.completedFuture(secret == null ? null : secret.clone());
        };
    }

    /** One identity with a UTF-8 secret, for tests and examples. */
    static PskStore of(String identity, String secret) {
        return of(Map.of(identity, secret.getBytes(StandardCharsets.UTF_8)));
    }
}
