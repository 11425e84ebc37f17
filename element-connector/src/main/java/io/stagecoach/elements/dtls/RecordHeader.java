package io.stagecoach.elements.dtls;

/**
 * The header of one DTLS 1.2 record (RFC 6347 §4.1), or of a {@code tls12_cid} record
 * (RFC 9146 §4), read without decrypting anything: enough to route a datagram to its session and
 * to drop what cannot be a record before BouncyCastle sees it.
 *
 * <pre>
 *  type(1) version(2) epoch(2) sequence(6) [cid(n), type 25 only] length(2) fragment(length)
 * </pre>
 *
 * <p>A mutable flyweight: the receive thread keeps one and {@link #parse parses} every record
 * into it, so the hot path allocates nothing here. Not thread-safe.
 */
final class RecordHeader {

    public static final int CHANGE_CIPHER_SPEC = 20;
    public static final int ALERT = 21;
    public static final int HANDSHAKE = 22;
    public static final int APPLICATION_DATA = 23;
    public static final int HEARTBEAT = 24;
    /** RFC 9146 §4: a record that carries a connection ID. */
    public static final int TLS12_CID = 25;

    /** Header length without a connection ID. */
    public static final int HEADER_LENGTH = 13;
    /** RFC 6347 §4.1: a fragment is at most 2^14 bytes plus the cipher's expansion (2048). */
    public static final int MAX_FRAGMENT_LENGTH = (1 << 14) + 2048;

    private int contentType;
    private int versionMajor;
    private int versionMinor;
    private int epoch;
    private long sequence;
    private int cidOffset;
    private int cidLength;
    private int headerLength;
    private int fragmentOffset;
    private int fragmentLength;
    private int recordOffset;

    /**
     * Reads the record that starts at {@code off}.
     *
     * @param cidLength the length of the connection IDs this side issued; a {@code tls12_cid}
     *                  record carries no length, so the receiver must know it (RFC 9146 §4).
     *                  With 0, a {@code tls12_cid} record is malformed.
     * @throws MalformedRecordException if the bytes are not a complete DTLS 1.x record
     */
    public RecordHeader parse(byte[] buf, int off, int end, int cidLength) throws MalformedRecordException {
        if (off < 0 || end > buf.length || off > end) {
            throw new MalformedRecordException("bad bounds");
        }
        int available = end - off;
        if (available < HEADER_LENGTH) {
            throw new MalformedRecordException("shorter than a record header: " + available);
        }
        int type = buf[off] & 0xFF;
        if (type < CHANGE_CIPHER_SPEC || type > TLS12_CID) {
            throw new MalformedRecordException("unknown content type " + type);
        }
        int major = buf[off + 1] & 0xFF;
        int minor = buf[off + 2] & 0xFF;
        // DTLS 1.0 is {254, 255}, DTLS 1.2 {254, 253}; records in a 1.2 handshake may carry either.
        if (major != 254 || (minor != 255 && minor != 253)) {
            throw new MalformedRecordException("not DTLS 1.0/1.2: " + major + "." + minor);
        }
        int ep = ((buf[off + 3] & 0xFF) << 8) | (buf[off + 4] & 0xFF);
        long seq = 0;
        for (int i = 5; i < 11; i++) {
            seq = (seq << 8) | (buf[off + i] & 0xFF);
        }
        int cid = 0;
        if (type == TLS12_CID) {
            if (cidLength <= 0) {
                throw new MalformedRecordException("tls12_cid record but no connection IDs in use");
            }
            if (ep == 0) {
                throw new MalformedRecordException("tls12_cid record in epoch 0");
            }
            cid = cidLength;
        }
        int header = HEADER_LENGTH + cid;
        if (available < header) {
            throw new MalformedRecordException("shorter than a CID record header: " + available);
        }
        int length = ((buf[off + header - 2] & 0xFF) << 8) | (buf[off + header - 1] & 0xFF);
        if (length == 0 && type != APPLICATION_DATA) {
            throw new MalformedRecordException("empty fragment of type " + type);
        }
        if (length > MAX_FRAGMENT_LENGTH) {
            throw new MalformedRecordException("fragment too long: " + length);
        }
        if (length > available - header) {
            throw new MalformedRecordException("fragment of " + length + " bytes but " + (available - header)
                    + " left in the datagram");
        }
        contentType = type;
        versionMajor = major;
        versionMinor = minor;
        epoch = ep;
        sequence = seq;
        cidOffset = type == TLS12_CID ? off + 11 : -1;
        this.cidLength = cid;
        headerLength = header;
        recordOffset = off;
        fragmentOffset = off + header;
        fragmentLength = length;
        return this;
    }

    public int contentType() {
        return contentType;
    }

    public int versionMajor() {
        return versionMajor;
    }

    public int versionMinor() {
        return versionMinor;
    }

    public int epoch() {
        return epoch;
    }

    /** The 48-bit sequence number. */
    public long sequence() {
        return sequence;
    }

    public boolean hasCid() {
        return contentType == TLS12_CID;
    }

    /** Offset of the connection ID in the parsed buffer; -1 without one. */
    public int cidOffset() {
        return cidOffset;
    }

    public int cidLength() {
        return cidLength;
    }

    public int headerLength() {
        return headerLength;
    }

    public int recordOffset() {
        return recordOffset;
    }

    public int fragmentOffset() {
        return fragmentOffset;
    }

    public int fragmentLength() {
        return fragmentLength;
    }

    /** Offset just past this record: where the next record of the datagram starts. */
    public int end() {
        return fragmentOffset + fragmentLength;
    }

    @Override
    public String toString() {
        return "Record[type=" + contentType + " v=" + versionMajor + "." + versionMinor + " epoch=" + epoch
                + " seq=" + sequence + (cidOffset >= 0 ? " cid=" + cidLength + "B" : "") + " len=" + fragmentLength
                + "]";
    }
}
