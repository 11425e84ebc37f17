package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SessionParameters;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.TlsSecret;

/**
 * The server's resumable sessions (RFC 5246 §7.3, abbreviated handshake), stored compactly: per
 * session one {@link Entry} with one byte array (session ID, master secret, PSK identity, the
 * server's extensions) instead of BouncyCastle's {@code TlsSession}, {@code SessionParameters}
 * and secret objects, keyed by the session ID bytes themselves. {@link #get} rebuilds a fresh
 * BouncyCastle session for each handshake that asks to resume. Certificates are kept by
 * reference (the server's own chain is shared by all sessions).
 *
 * <p>Forgets the least recently stored or resumed entry beyond {@code capacity}; capacity 0
 * stores nothing. A removed or evicted entry's master secret is overwritten. Thread-safe.
 */
final class ResumptionCache {

    /** RFC 5246 §8.1: the master secret is always 48 bytes. */
    static final int MASTER_SECRET = 48;

    private final int capacity;
    private final LinkedHashMap<Entry, Entry> map;

    ResumptionCache(int capacity) {
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Entry, Entry> eldest) {
                if (size() > ResumptionCache.this.capacity) {
                    eldest.getKey().wipe();
                    return true;
                }
                return false;
            }
        };
    }

    /**
     * Stores {@code session} under its ID, replacing an entry with that ID. Nothing is stored
     * for a session that is not resumable, has no ID, or whose master secret is gone.
     */
    void put(TlsCrypto crypto, TlsSession session) throws IOException {
        if (capacity == 0 || session == null || !session.isResumable()) {
            return;
        }
        byte[] id = session.getSessionID();
        SessionParameters p = session.exportSessionParameters();
        if (id == null || id.length == 0 || id.length > 32 || p == null || p.getMasterSecret() == null) {
            return;
        }
        byte[] secret;
        TlsSecret ms = p.getMasterSecret();
        synchronized (ms) {
            if (!ms.isAlive()) {
                return;
            }
            secret = crypto.adoptSecret(ms).extract(); // a copy: the session's own secret stays
        }
        if (secret.length != MASTER_SECRET) {
            Arrays.fill(secret, (byte) 0);
            return;
        }
        Entry e = new Entry(id, secret, p.getPSKIdentity(), encodeExtensions(p.readServerExtensions()),
                p.getCipherSuite(), p.getNegotiatedVersion(), p.isExtendedMasterSecret(), p.getLocalCertificate(),
                p.getPeerCertificate(), p.getSRPIdentity());
        Arrays.fill(secret, (byte) 0);
        synchronized (this) {
            Entry old = map.remove(e);
            if (old != null) {
                old.wipe();
            }
            map.put(e, e);
        }
    }

    /** A new BouncyCastle session for the entry stored under {@code sessionId}, or {@code null}. */
    TlsSession get(TlsCrypto crypto, byte[] sessionId) throws IOException {
        if (sessionId == null || sessionId.length == 0 || sessionId.length > 32) {
            return null;
        }
        Entry e;
        byte[] secret;
        synchronized (this) {
            e = map.get(Entry.probe(sessionId));
            if (e == null) {
                return null;
            }
            secret = e.masterSecret();
        }
        TlsSecret ms = crypto.createSecret(secret);
        Arrays.fill(secret, (byte) 0);
        SessionParameters p = new SessionParameters.Builder()
                .setCipherSuite(e.cipherSuite)
                .setExtendedMasterSecret(e.extendedMasterSecret)
                .setLocalCertificate(e.localCertificate)
                .setMasterSecret(ms)
                .setNegotiatedVersion(e.version)
                .setPeerCertificate(e.peerCertificate)
                .setPSKIdentity(e.pskIdentity())
                .setSRPIdentity(e.srpIdentity)
                .setServerExtensions(e.serverExtensions())
                .build();
        return TlsUtils.importSession(sessionId.clone(), p);
    }

    /** Forgets the entry stored under {@code sessionId}, if any. */
    synchronized void remove(byte[] sessionId) {
        if (sessionId == null || sessionId.length == 0 || sessionId.length > 32) {
            return;
        }
        Entry old = map.remove(Entry.probe(sessionId));
        if (old != null) {
            old.wipe();
        }
    }

    synchronized int size() {
        return map.size();
    }

    synchronized void clear() {
        for (Entry e : map.keySet()) {
            e.wipe();
        }
        map.clear();
    }

    /**
     * Server extensions as {@code extension_type, length, data} triples (RFC 5246 §7.4.1.4),
     * without the outer length; {@code null} for none.
     */
    static byte[] encodeExtensions(Hashtable<?, ?> extensions) {
        if (extensions == null || extensions.isEmpty()) {
            return null;
        }
        int length = 0;
        for (Object v : extensions.values()) {
            length += 4 + ((byte[]) v).length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (Enumeration<?> keys = extensions.keys(); keys.hasMoreElements(); ) {
            int type = (Integer) keys.nextElement();
            byte[] data = (byte[]) extensions.get(type);
            out[at] = (byte) (type >> 8);
            out[at + 1] = (byte) type;
            out[at + 2] = (byte) (data.length >> 8);
            out[at + 3] = (byte) data.length;
            System.arraycopy(data, 0, out, at + 4, data.length);
            at += 4 + data.length;
        }
        return out;
    }

    /** The inverse of {@link #encodeExtensions} over {@code length} bytes of {@code buf} at {@code off}. */
    static Hashtable<Integer, byte[]> decodeExtensions(byte[] buf, int off, int length) {
        if (length == 0) {
            return null;
        }
        Hashtable<Integer, byte[]> extensions = new Hashtable<>();
        int end = off + length;
        while (off < end) {
            int type = (buf[off] & 0xFF) << 8 | buf[off + 1] & 0xFF;
            int len = (buf[off + 2] & 0xFF) << 8 | buf[off + 3] & 0xFF;
            extensions.put(type, Arrays.copyOfRange(buf, off + 4, off + 4 + len));
            off += 4 + len;
        }
        return extensions;
    }

    /**
     * One resumable session. Its own map key: equal to another entry (or a {@linkplain #probe
     * probe}) with the same session ID. {@code state} holds the session ID, the master secret, the
     * PSK identity and the encoded server extensions, one after the other.
     */
    static final class Entry {

        private final byte[] state;
        private final byte idLength;
        private final short pskLength;
        private final int hash;
        final int cipherSuite;
        final ProtocolVersion version;
        final boolean extendedMasterSecret;
        final Certificate localCertificate;
        final Certificate peerCertificate;
        final byte[] srpIdentity;

        Entry(byte[] id, byte[] masterSecret, byte[] pskIdentity, byte[] extensions, int cipherSuite,
                ProtocolVersion version, boolean extendedMasterSecret, Certificate localCertificate,
                Certificate peerCertificate, byte[] srpIdentity) {
            int psk = pskIdentity == null ? -1 : pskIdentity.length;
            if (psk > Short.MAX_VALUE) {
                throw new IllegalArgumentException("PSK identity too long: " + psk);
            }
            int ext = extensions == null ? 0 : extensions.length;
            this.state = new byte[id.length + MASTER_SECRET + Math.max(0, psk) + ext];
            System.arraycopy(id, 0, state, 0, id.length);
            System.arraycopy(masterSecret, 0, state, id.length, MASTER_SECRET);
            if (psk > 0) {
                System.arraycopy(pskIdentity, 0, state, id.length + MASTER_SECRET, psk);
            }
            if (ext > 0) {
                System.arraycopy(extensions, 0, state, id.length + MASTER_SECRET + Math.max(0, psk), ext);
            }
            this.idLength = (byte) id.length;
            this.pskLength = (short) psk;
            this.hash = Arrays.hashCode(id);
            this.cipherSuite = cipherSuite;
            this.version = version;
            this.extendedMasterSecret = extendedMasterSecret;
            this.localCertificate = localCertificate;
            this.peerCertificate = peerCertificate;
            this.srpIdentity = srpIdentity;
        }

        private Entry(byte[] id) {
            this.state = id;
            this.idLength = (byte) id.length;
            this.pskLength = -1;
            this.hash = Arrays.hashCode(id);
            this.cipherSuite = 0;
            this.version = null;
            this.extendedMasterSecret = false;
            this.localCertificate = null;
            this.peerCertificate = null;
            this.srpIdentity = null;
        }

        /** A lookup key only. */
        static Entry probe(byte[] id) {
            return new Entry(id);
        }

        byte[] sessionId() {
            return Arrays.copyOf(state, idLength);
        }

        /** A copy of the master secret. */
        byte[] masterSecret() {
            return Arrays.copyOfRange(state, idLength, idLength + MASTER_SECRET);
        }

        byte[] pskIdentity() {
            if (pskLength < 0) {
                return null;
            }
            int at = idLength + MASTER_SECRET;
            return Arrays.copyOfRange(state, at, at + pskLength);
        }

        Hashtable<Integer, byte[]> serverExtensions() {
            int at = idLength + MASTER_SECRET + Math.max(0, pskLength);
            return decodeExtensions(state, at, state.length - at);
        }

        /** Overwrites the master secret (the entry is no longer resumable after this). */
        void wipe() {
            Arrays.fill(state, idLength, idLength + MASTER_SECRET, (byte) 0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.idLength == idLength
                    && Arrays.equals(e.state, 0, idLength, state, 0, idLength);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
