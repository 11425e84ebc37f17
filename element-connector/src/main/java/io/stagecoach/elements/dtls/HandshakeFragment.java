package io.stagecoach.elements.dtls;

/**
 * The header of one handshake fragment in a plaintext (epoch 0) handshake record
 * (RFC 6347 §4.2.2):
 *
 * <pre>
 *  msg_type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3) body(fragment_length)
 * </pre>
 *
 * <p>Read on the receive thread for two reasons: to drop fragments that announce a message larger
 * than we accept before BouncyCastle allocates a buffer of the announced size (BC before 1.85,
 * CVE-2026-59646), and to see the PSK identity of a ClientKeyExchange early enough to look the
 * key up asynchronously. Mutable flyweight, not thread-safe.
 */
final class HandshakeFragment {

    public static final int HEADER_LENGTH = 12;
    public static final int CLIENT_HELLO = 1;
    public static final int CLIENT_KEY_EXCHANGE = 16;

    private int type;
    private int messageLength;
    private int messageSeq;
    private int fragmentOffset;
    private int fragmentLength;
    private int bodyOffset;

    /**
     * Reads the fragment at {@code off}; it must end at or before {@code end}.
     *
     * @throws MalformedRecordException if the header is cut short or inconsistent
     */
    public HandshakeFragment parse(byte[] buf, int off, int end) throws MalformedRecordException {
        if (off < 0 || end > buf.length || off > end) {
            throw new MalformedRecordException("bad bounds");
        }
        if (end - off < HEADER_LENGTH) {
            throw new MalformedRecordException("shorter than a handshake header: " + (end - off));
        }
        int t = buf[off] & 0xFF;
        int length = uint24(buf, off + 1);
        int seq = ((buf[off + 4] & 0xFF) << 8) | (buf[off + 5] & 0xFF);
        int fragOff = uint24(buf, off + 6);
        int fragLen = uint24(buf, off + 9);
        if (fragOff + (long) fragLen > length) {
            throw new MalformedRecordException("fragment " + fragOff + "+" + fragLen + " beyond message length "
                    + length);
        }
        if (fragLen > end - off - HEADER_LENGTH) {
            throw new MalformedRecordException("fragment body cut short");
        }
        type = t;
        messageLength = length;
        messageSeq = seq;
        fragmentOffset = fragOff;
        fragmentLength = fragLen;
        bodyOffset = off + HEADER_LENGTH;
        return this;
    }

    /** The big-endian 24-bit unsigned integer at {@code off} (the header's length fields). */
    static int uint24(byte[] b, int off) {
        return ((b[off] & 0xFF) << 16) | ((b[off + 1] & 0xFF) << 8) | (b[off + 2] & 0xFF);
    }

    public int type() {
        return type;
    }

    /** The length of the whole message the fragment belongs to. */
    public int messageLength() {
        return messageLength;
    }

    public int messageSeq() {
        return messageSeq;
    }

    public int fragmentOffset() {
        return fragmentOffset;
    }

    public int fragmentLength() {
        return fragmentLength;
    }

    public int bodyOffset() {
        return bodyOffset;
    }

    /** Offset just past the fragment: where the next fragment of the record starts. */
    public int end() {
        return bodyOffset + fragmentLength;
    }

    /**
     * The PSK identity at the start of a ClientKeyExchange body (RFC 4279 §2, also the first
     * field for ECDHE_PSK, RFC 5489 §2), when this fragment holds the start of it whole.
     *
     * @return the identity bytes, or {@code null} if this is not such a fragment
     */
    public byte[] pskIdentity(byte[] buf) {
        if (type != CLIENT_KEY_EXCHANGE || fragmentOffset != 0 || fragmentLength < 2) {
            return null;
        }
        int n = ((buf[bodyOffset] & 0xFF) << 8) | (buf[bodyOffset + 1] & 0xFF);
        if (n > fragmentLength - 2) {
            return null;
        }
        byte[] identity = new byte[n];
        System.arraycopy(buf, bodyOffset + 2, identity, 0, n);
        return identity;
    }
}
