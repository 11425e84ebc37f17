package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Hashtable;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.ExtensionType;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SessionParameters;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsSecret;
import org.junit.jupiter.api.Test;

class ResumptionCacheTest {

    private final DtlsCrypto crypto = new DtlsCrypto(new SecureRandom());

    private static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    private static Hashtable<Integer, byte[]> extensions() {
        Hashtable<Integer, byte[]> ext = new Hashtable<>();
        ext.put(ExtensionType.extended_master_secret, new byte[0]);
        ext.put(ExtensionType.connection_id, new byte[] {6, 1, 2, 3, 4, 5, 6});
        ext.put(ExtensionType.renegotiation_info, new byte[] {0});
        return ext;
    }

    private TlsSession session(int seed, byte[] pskIdentity) throws Exception {
        SessionParameters p = new SessionParameters.Builder()
                .setCipherSuite(CipherSuite.TLS_PSK_WITH_AES_128_CCM_8)
                .setExtendedMasterSecret(true)
                .setNegotiatedVersion(ProtocolVersion.DTLSv12)
                .setMasterSecret(crypto.createSecret(bytes(48, seed)))
                .setPSKIdentity(pskIdentity)
                .setServerExtensions(extensions())
                .build();
        return TlsUtils.importSession(bytes(32, seed), p);
    }

    private static byte[] secretOf(DtlsCrypto crypto, TlsSession s) {
        TlsSecret ms = s.exportSessionParameters().getMasterSecret();
        return crypto.adoptSecret(ms).extract();
    }

    @Test
    void rebuildsWhatWasStored() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        TlsSession original = session(1, "device-1".getBytes(StandardCharsets.UTF_8));
        cache.put(crypto, original);

        TlsSession back = cache.get(crypto, bytes(32, 1));
        assertNotNull(back);
        assertTrue(back.isResumable());
        assertArrayEquals(bytes(32, 1), back.getSessionID());
        SessionParameters p = back.exportSessionParameters();
        assertEquals(CipherSuite.TLS_PSK_WITH_AES_128_CCM_8, p.getCipherSuite());
        assertTrue(p.isExtendedMasterSecret());
        assertEquals(ProtocolVersion.DTLSv12, p.getNegotiatedVersion());
        assertArrayEquals("device-1".getBytes(StandardCharsets.UTF_8), p.getPSKIdentity());
        assertArrayEquals(bytes(48, 1), secretOf(crypto, back));
        assertNull(p.getPeerCertificate());
        assertNull(p.getLocalCertificate());
        Hashtable<?, ?> ext = p.readServerExtensions();
        assertEquals(3, ext.size());
        for (var e : extensions().entrySet()) {
            assertArrayEquals(e.getValue(), (byte[]) ext.get(e.getKey()), "extension " + e.getKey());
        }
        // storing copied the secret: the handshake's own session keeps a live one
        assertTrue(original.exportSessionParameters().getMasterSecret().isAlive());
    }

    @Test
    void eachResumptionGetsItsOwnSession() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        cache.put(crypto, session(2, null));
        TlsSession a = cache.get(crypto, bytes(32, 2));
        TlsSession b = cache.get(crypto, bytes(32, 2));
        assertNotSame(a, b);
        a.invalidate();
        a.exportSessionParameters().getMasterSecret().destroy();
        assertTrue(b.isResumable());
        assertArrayEquals(bytes(48, 2), secretOf(crypto, b));
        assertNull(b.exportSessionParameters().getPSKIdentity());
        assertArrayEquals(bytes(48, 2), secretOf(crypto, cache.get(crypto, bytes(32, 2))));
    }

    @Test
    void emptyPskIdentityStaysEmptyNotAbsent() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        cache.put(crypto, session(3, new byte[0]));
        assertArrayEquals(new byte[0], cache.get(crypto, bytes(32, 3)).exportSessionParameters().getPSKIdentity());
    }

    @Test
    void unknownIdsGiveNothing() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        cache.put(crypto, session(4, null));
        assertNull(cache.get(crypto, bytes(32, 5)));
        assertNull(cache.get(crypto, bytes(31, 4)));
        assertNull(cache.get(crypto, new byte[0]));
        assertNull(cache.get(crypto, null));
    }

    @Test
    void forgetsTheLeastRecentlyUsedBeyondCapacity() throws Exception {
        ResumptionCache cache = new ResumptionCache(2);
        cache.put(crypto, session(1, null));
        cache.put(crypto, session(2, null));
        assertNotNull(cache.get(crypto, bytes(32, 1))); // 2 is now the least recently used
        cache.put(crypto, session(3, null));
        assertEquals(2, cache.size());
        assertNull(cache.get(crypto, bytes(32, 2)));
        assertNotNull(cache.get(crypto, bytes(32, 1)));
        assertNotNull(cache.get(crypto, bytes(32, 3)));
    }

    @Test
    void capacityZeroStoresNothing() throws Exception {
        ResumptionCache cache = new ResumptionCache(0);
        cache.put(crypto, session(1, null));
        assertEquals(0, cache.size());
        assertNull(cache.get(crypto, bytes(32, 1)));
    }

    @Test
    void removeAndReplace() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        cache.put(crypto, session(1, null));
        cache.remove(bytes(32, 1));
        assertNull(cache.get(crypto, bytes(32, 1)));

        cache.put(crypto, session(1, null));
        SessionParameters other = new SessionParameters.Builder()
                .setCipherSuite(CipherSuite.TLS_PSK_WITH_AES_128_GCM_SHA256)
                .setNegotiatedVersion(ProtocolVersion.DTLSv12)
                .setMasterSecret(crypto.createSecret(bytes(48, 9)))
                .build();
        cache.put(crypto, TlsUtils.importSession(bytes(32, 1), other));
        assertEquals(1, cache.size());
        TlsSession back = cache.get(crypto, bytes(32, 1));
        assertEquals(CipherSuite.TLS_PSK_WITH_AES_128_GCM_SHA256, back.exportSessionParameters().getCipherSuite());
        assertFalse(back.exportSessionParameters().isExtendedMasterSecret());
        assertNull(back.exportSessionParameters().readServerExtensions());
        assertArrayEquals(bytes(48, 9), secretOf(crypto, back));
    }

    @Test
    void storesOnlyResumableSessionsWithALiveSecret() throws Exception {
        ResumptionCache cache = new ResumptionCache(10);
        TlsSession invalid = session(1, null);
        invalid.invalidate();
        cache.put(crypto, invalid);
        TlsSession destroyed = session(2, null);
        destroyed.exportSessionParameters().getMasterSecret().destroy();
        cache.put(crypto, destroyed);
        cache.put(crypto, TlsUtils.importSession(new byte[0], session(3, null).exportSessionParameters()));
        cache.put(crypto, null);
        assertEquals(0, cache.size());
    }

    @Test
    void extensionsEncodeAndDecode() {
        byte[] encoded = ResumptionCache.encodeExtensions(extensions());
        assertEquals(4 + 0 + 4 + 7 + 4 + 1, encoded.length);
        Hashtable<Integer, byte[]> back = ResumptionCache.decodeExtensions(encoded, 0, encoded.length);
        assertEquals(3, back.size());
        for (var e : extensions().entrySet()) {
            assertArrayEquals(e.getValue(), back.get(e.getKey()));
        }
        assertNull(ResumptionCache.encodeExtensions(new Hashtable<>()));
        assertNull(ResumptionCache.encodeExtensions(null));
        assertNull(ResumptionCache.decodeExtensions(encoded, encoded.length, 0));
    }
}
