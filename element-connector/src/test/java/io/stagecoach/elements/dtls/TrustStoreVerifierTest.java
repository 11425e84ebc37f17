package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Raw public keys are trusted by their encoding, whichever provider made or decoded them. */
class TrustStoreVerifierTest {

    @Test
    void rawKeyDecodedByAnotherProviderIsTrusted() throws Exception {
        List<PublicKey> trusted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            trusted.add(DtlsTestSupport.ecKeyPair().getPublic()); // BouncyCastle's key objects
        }
        TrustStoreVerifier verifier = TrustStoreVerifier.of(List.of(), trusted);
        for (PublicKey k : trusted) {
            // as the connector hands a peer's key over: decoded by the JDK's provider
            PublicKey peer = KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(k.getEncoded()));
            assertTrue(verifier.verifyRawPublicKey(peer, DtlsTestSupport.LOOPBACK).toCompletableFuture().join());
        }
        PublicKey stranger = DtlsTestSupport.ecKeyPair().getPublic();
        assertFalse(verifier.verifyRawPublicKey(stranger, DtlsTestSupport.LOOPBACK).toCompletableFuture().join());
    }
}
