package io.stagecoach.elements.dtls;

import java.io.IOException;
import org.bouncycastle.tls.EncryptionAlgorithm;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.TlsImplUtils;

/**
 * DTLS 1.2 record protection with AES-CCM (RFC 6655, 7251) or AES-GCM (RFC 5288), kept small:
 * an idle session holds only its key block (2 keys, 2 four-byte salts); the AES engines exist
 * while the session is active and {@link #cool} drops them. Nonce: the salt and the 8-byte
 * explicit nonce, which this side sets to epoch and sequence number (RFC 5288 §3, as
 * BouncyCastle and OpenSSL do). Additional data: RFC 5246 §6.2.3.3, or RFC 9146 §5 for
 * {@code tls12_cid} records, whose plaintext carries the real content type at its end
 * ({@code DTLSInnerPlaintext}, no padding added; the peer's zero padding is stripped).
 *
 * <p>The primitives are BouncyCastle's (AES, CCM, GCM); this class only frames records.
 */
final class AeadProtection implements RecordProtection {

    private static final int EXPLICIT_NONCE = 8;
    private static final int SALT = 4;

    private final byte[] keyBlock;
    private final int keyLength;
    private final int tagLength;
    private final boolean gcm;
    private final byte[] readCid;
    private final byte[] writeCid;
    private volatile Direction reader;
    private volatile Direction writer;

    /** One direction's engine and scratch arrays (guarded by the session's read or write lock). */
    private static final class Direction {
        final AeadEngine engine;
        final byte[] nonce = new byte[SALT + EXPLICIT_NONCE];
        final byte[] aad;

        Direction(AeadEngine engine, byte[] salt, int saltOff, int aadLength) {
            this.engine = engine;
            this.aad = new byte[aadLength];
            System.arraycopy(salt, saltOff, nonce, 0, SALT);
        }
    }

    /**
     * @param keyBlock read key, write key, read salt, write salt (this side's view)
     * @param readCid  the connection ID in records we receive, {@code null} if none
     * @param writeCid the connection ID we put in records we send, {@code null} if none
     */
    AeadProtection(byte[] keyBlock, int keyLength, int tagLength, boolean gcm, byte[] readCid, byte[] writeCid) {
        this.keyBlock = keyBlock;
        this.keyLength = keyLength;
        this.tagLength = tagLength;
        this.gcm = gcm;
        this.readCid = readCid == null || readCid.length == 0 ? null : readCid.clone();
        this.writeCid = writeCid == null || writeCid.length == 0 ? null : writeCid.clone();
    }

    /** Whether this class protects records of {@code encryptionAlgorithm} (BC's code). */
    static boolean supports(int encryptionAlgorithm) {
        return tagLength(encryptionAlgorithm) > 0;
    }

    /**
     * The protection of the epoch the handshake in {@code params} is about to start: the key block
     * of RFC 5246 §6.3, computed by BouncyCastle exactly as for its own record layer.
     */
    static AeadProtection derive(TlsCryptoParameters params, int encryptionAlgorithm) throws IOException {
        int keyLength = keyLength(encryptionAlgorithm);
        int tag = tagLength(encryptionAlgorithm);
        byte[] block = TlsImplUtils.calculateKeyBlock(params, 2 * keyLength + 2 * SALT);
        // client_write_key, server_write_key, client_write_IV, server_write_IV
        byte[] mine = new byte[block.length];
        int client = 0;
        int server = keyLength;
        int clientSalt = 2 * keyLength;
        int serverSalt = clientSalt + SALT;
        boolean isServer = params.isServer();
        System.arraycopy(block, isServer ? client : server, mine, 0, keyLength);
        System.arraycopy(block, isServer ? server : client, mine, keyLength, keyLength);
        System.arraycopy(block, isServer ? clientSalt : serverSalt, mine, 2 * keyLength, SALT);
        System.arraycopy(block, isServer ? serverSalt : clientSalt, mine, 2 * keyLength + SALT, SALT);
        java.util.Arrays.fill(block, (byte) 0);
        SecurityParameters sp = params.getSecurityParametersHandshake();
        boolean gcm = encryptionAlgorithm == EncryptionAlgorithm.AES_128_GCM
                || encryptionAlgorithm == EncryptionAlgorithm.AES_256_GCM;
        // BC: "peer" = the ID in the peer's records (the one we chose), "local" = the one we write
        return new AeadProtection(mine, keyLength, tag, gcm, sp.getConnectionIDPeer(), sp.getConnectionIDLocal());
    }

    private static int tagLength(int encryptionAlgorithm) {
        switch (encryptionAlgorithm) {
            case EncryptionAlgorithm.AES_128_CCM_8:
            case EncryptionAlgorithm.AES_256_CCM_8:
                return 8;
            case EncryptionAlgorithm.AES_128_CCM:
            case EncryptionAlgorithm.AES_256_CCM:
            case EncryptionAlgorithm.AES_128_GCM:
            case EncryptionAlgorithm.AES_256_GCM:
                return 16;
            default:
                return -1;
        }
    }

    private static int keyLength(int encryptionAlgorithm) {
        switch (encryptionAlgorithm) {
            case EncryptionAlgorithm.AES_256_CCM_8:
            case EncryptionAlgorithm.AES_256_CCM:
            case EncryptionAlgorithm.AES_256_GCM:
                return 32;
            default:
                return 16;
        }
    }

    private AeadEngine engine(int keyOff) {
        return gcm ? new GcmEngine(keyBlock, keyOff, keyLength, tagLength)
                : new CcmEngine(keyBlock, keyOff, keyLength, tagLength);
    }

    private Direction reader() {
        Direction d = reader;
        if (d == null) {
            d = new Direction(engine(0), keyBlock, 2 * keyLength, readCid == null ? 13 : 23 + readCid.length);
            reader = d;
        }
        return d;
    }

    private Direction writer() {
        Direction d = writer;
        if (d == null) {
            d = new Direction(engine(keyLength), keyBlock, 2 * keyLength + SALT,
                    writeCid == null ? 13 : 23 + writeCid.length);
            writer = d;
        }
        return d;
    }

    @Override
    public byte[] seal(int contentType, int epoch, long seq, byte[] plain, int off, int len) {
        Direction w = writer();
        boolean cid = writeCid != null;
        int inner = len + (cid ? 1 : 0);
        int header = RecordHeader.HEADER_LENGTH + (cid ? writeCid.length : 0);
        int fragment = EXPLICIT_NONCE + inner + tagLength;
        byte[] out = new byte[header + fragment];
        out[0] = (byte) (cid ? RecordHeader.TLS12_CID : contentType);
        out[1] = (byte) 254;
        out[2] = (byte) 253;
        out[3] = (byte) (epoch >> 8);
        out[4] = (byte) epoch;
        for (int i = 10; i >= 5; i--, seq >>>= 8) {
            out[i] = (byte) seq;
        }
        if (cid) {
            System.arraycopy(writeCid, 0, out, 11, writeCid.length);
        }
        out[header - 2] = (byte) (fragment >> 8);
        out[header - 1] = (byte) fragment;
        System.arraycopy(out, 3, out, header, EXPLICIT_NONCE); // explicit nonce = epoch + sequence
        int body = header + EXPLICIT_NONCE;
        System.arraycopy(plain, off, out, body, len);
        if (cid) {
            out[body + len] = (byte) contentType;
        }
        System.arraycopy(out, 3, w.nonce, SALT, EXPLICIT_NONCE);
        int aadLength = additionalData(w.aad, out, 0, writeCid, inner);
        w.engine.seal(w.nonce, w.aad, aadLength, out, body, inner, out, body);
        return out;
    }

    @Override
    public boolean open(byte[] buf, RecordHeader h, Opened out) {
        boolean cid = h.hasCid();
        if (cid != (readCid != null)) {
            return false;
        }
        if (cid && !java.util.Arrays.equals(buf, h.cidOffset(), h.cidOffset() + h.cidLength(), readCid, 0,
                readCid.length)) {
            return false; // another datagram's session: CIDs travel in clear, no secret to time
        }
        int inner = h.fragmentLength() - EXPLICIT_NONCE - tagLength;
        if (inner < (cid ? 1 : 0)) {
            return false;
        }
        Direction r = reader();
        System.arraycopy(buf, h.fragmentOffset(), r.nonce, SALT, EXPLICIT_NONCE);
        int aadLength = additionalData(r.aad, buf, h.recordOffset(), readCid, inner);
        int body = h.fragmentOffset() + EXPLICIT_NONCE;
        if (!r.engine.open(r.nonce, r.aad, aadLength, buf, body, inner + tagLength)) {
            return false;
        }
        int type = h.contentType();
        int length = inner;
        if (cid) {
            // DTLSInnerPlaintext: content, real type, zero padding (RFC 9146 §4)
            do {
                length--;
            } while (length >= 0 && buf[body + length] == 0);
            if (length < 0) {
                return false;
            }
            type = buf[body + length] & 0xFF;
        }
        out.contentType = type;
        out.offset = body;
        out.length = length;
        return true;
    }

    /**
     * Writes the additional data for the record whose header starts at {@code rec}.
     * Without a CID: seq_num (epoch + sequence) + type + version + length (RFC 5246 §6.2.3.3).
     * With one: seq_num_placeholder + tls12_cid + cid_length + tls12_cid + version + epoch +
     * sequence + cid + length_of_DTLSInnerPlaintext (RFC 9146 §5).
     */
    private static int additionalData(byte[] aad, byte[] rec, int at, byte[] cid, int innerLength) {
        if (cid == null) {
            System.arraycopy(rec, at + 3, aad, 0, 8);
            aad[8] = rec[at];
            aad[9] = rec[at + 1];
            aad[10] = rec[at + 2];
            aad[11] = (byte) (innerLength >> 8);
            aad[12] = (byte) innerLength;
            return 13;
        }
        for (int i = 0; i < 8; i++) {
            aad[i] = (byte) 0xFF;
        }
        aad[8] = RecordHeader.TLS12_CID;
        aad[9] = (byte) cid.length;
        aad[10] = RecordHeader.TLS12_CID;
        aad[11] = rec[at + 1];
        aad[12] = rec[at + 2];
        System.arraycopy(rec, at + 3, aad, 13, 8);
        System.arraycopy(cid, 0, aad, 21, cid.length);
        aad[21 + cid.length] = (byte) (innerLength >> 8);
        aad[22 + cid.length] = (byte) innerLength;
        return 23 + cid.length;
    }

    @Override
    public int plaintextLimit(int maxRecord) {
        int overhead = RecordHeader.HEADER_LENGTH + (writeCid != null ? writeCid.length + 1 : 0) + EXPLICIT_NONCE
                + tagLength;
        return Math.min(1 << 14, maxRecord - overhead);
    }

    @Override
    public int minFragmentLength() {
        return EXPLICIT_NONCE + tagLength;
    }

    @Override
    public void cool() {
        reader = null;
        writer = null;
    }
}
