package io.stagecoach.elements.dtls;

/**
 * Encrypts and decrypts the records of one established session's epoch (RFC 6347 §4.1, with the
 * {@code tls12_cid} format of RFC 9146 §4 when the peer asked for a connection ID). Keys come
 * from the handshake; the session keeps sequence numbers and the replay window. {@link #seal}
 * runs under the session's write lock, {@link #open} under its read lock.
 */
interface RecordProtection {

    /** What {@link #open} found: the content type and where the plaintext lies. */
    final class Opened {
        public int contentType;
        public int offset;
        public int length;
    }

    /** The whole record (header included) for {@code len} bytes of plaintext of {@code contentType}. */
    byte[] seal(int contentType, int epoch, long seq, byte[] plain, int off, int len);

    /**
     * Authenticates and decrypts the record {@code h} describes, in place.
     *
     * @return {@code false} if it does not authenticate (the caller drops it silently,
     *         RFC 6347 §4.1.2.7); otherwise {@code out} holds the real content type and plaintext
     */
    boolean open(byte[] buf, RecordHeader h, Opened out);

    /** The largest plaintext a record of at most {@code maxRecord} bytes can carry. */
    int plaintextLimit(int maxRecord);

    /** The shortest fragment a record of this protection can have (explicit nonce and tag). */
    int minFragmentLength();

    /** Drops cached cipher state of an idle session; the next record rebuilds it from the keys. */
    void cool();
}
