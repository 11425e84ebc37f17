package io.stagecoach.elements.dtls;

/**
 * What the receive thread learns from a datagram before any session or BouncyCastle sees it
 * (RFC 6347 §4.1 record headers, §4.2.2 handshake fragments): the first record's epoch and
 * connection ID (RFC 9146 §4), the highest epoch, whether it opens with a ClientHello and where
 * that hello's body lies, and the PSK identity of a ClientKeyExchange.
 *
 * <p>One instance per receive thread ({@link #ofThisThread}), reused for every datagram, so the
 * screen allocates nothing; its fields hold the last datagram's result until the next
 * {@link #screen}.
 */
final class DatagramScreen {

    /** BC's own limit on a handshake message (AbstractTlsPeer); we drop larger ones earlier. */
    static final int MAX_HANDSHAKE_MESSAGE = 32_768;
    private static final ThreadLocal<DatagramScreen> OF_THREAD = ThreadLocal.withInitial(DatagramScreen::new);

    private final RecordHeader header = new RecordHeader();
    private final HandshakeFragment fragment = new HandshakeFragment();
    /** Room for the HelloVerifyRequest this thread answers a hello with. */
    final byte[] helloVerifyRequest = new byte[CookieVerifier.HVR_LENGTH];

    int epoch;
    int maxEpoch;
    int cidOffset;
    boolean clientHello;
    /** The ClientHello's body when it is one whole fragment filling the first record; else -1. */
    int helloBody;
    int helloBodyLength;
    byte[] pskIdentity;

    private DatagramScreen() {
    }

    /** The calling thread's screen. */
    static DatagramScreen ofThisThread() {
        return OF_THREAD.get();
    }

    /**
     * Whether {@code b} may start with a ClientHello: a handshake record of epoch 0 whose first
     * fragment is a client_hello. Every datagram the screen finds a ClientHello in passes; a
     * malformed one that passes is dropped by the screen after it met the hello budget.
     */
    static boolean mayBeClientHello(byte[] b) {
        return mayBeClientHello(b, 0, b.length);
    }

    /** As {@link #mayBeClientHello(byte[])} for the {@code length} bytes of {@code b} from {@code off}. */
    static boolean mayBeClientHello(byte[] b, int off, int length) {
        return length > RecordHeader.HEADER_LENGTH && (b[off] & 0xFF) == RecordHeader.HANDSHAKE && b[off + 3] == 0
                && b[off + 4] == 0 && b[off + RecordHeader.HEADER_LENGTH] == HandshakeFragment.CLIENT_HELLO;
    }

    /**
     * The last 8 bytes of a ClientHello's random, read in place from an unfragmented first
     * fragment (RFC 5246 §7.4.1.2: a retransmitted hello repeats it, a new one does not); 0 when
     * the datagram is too short to hold it.
     */
    static long helloRandom(byte[] b, int off, int length) {
        int end = off + RecordHeader.HEADER_LENGTH + 12 + 2 + 32;
        if (length < end - off) {
            return 0;
        }
        long r = 0;
        for (int i = end - 8; i < end; i++) {
            r = (r << 8) | (b[i] & 0xFF);
        }
        return r;
    }

    /**
     * Whether a datagram that {@link #mayBeClientHello may be a ClientHello} shows a non-empty
     * cookie (RFC 6347 §4.2.1: the client's second hello, answering a HelloVerifyRequest): read in
     * place from the first fragment when it starts at offset 0 and reaches the cookie's length
     * byte (client_version, random, session_id, cookie; §4.2.2, RFC 5246 §7.4.1.2). False for a
     * first hello and for anything it cannot read; nothing is validated here.
     */
    static boolean carriesCookie(byte[] b, int off, int length) {
        int fragment = off + RecordHeader.HEADER_LENGTH;
        if (length < RecordHeader.HEADER_LENGTH + 12 || b[fragment + 6] != 0 || b[fragment + 7] != 0
                || b[fragment + 8] != 0) {
            return false;
        }
        int sessionIdLength = off + RecordHeader.HEADER_LENGTH + 12 + 2 + 32;
        if (sessionIdLength >= off + length) {
            return false;
        }
        int cookieLength = sessionIdLength + 1 + (b[sessionIdLength] & 0xFF);
        return cookieLength < off + length && b[cookieLength] != 0;
    }

    /**
     * Parses every record of the datagram and every handshake fragment of its plaintext records;
     * throws for anything malformed, for a fragment announcing a message larger than
     * {@value #MAX_HANDSHAKE_MESSAGE} bytes (BC 1.84 would allocate the announced size), and
     * notes the PSK identity of a ClientKeyExchange.
     *
     * @param cidLength the length of the connection IDs this connector issues (0: none)
     */
    void screen(byte[] b, int cidLength) throws MalformedRecordException {
        reset();
        RecordHeader h = header;
        HandshakeFragment f = fragment;
        int off = 0;
        boolean isFirst = true;
        while (off < b.length) {
            h.parse(b, off, b.length, cidLength);
            if (isFirst) {
                epoch = h.epoch();
                cidOffset = h.cidOffset();
                isFirst = false;
            }
            maxEpoch = Math.max(maxEpoch, h.epoch());
            if (h.epoch() == 0 && h.contentType() == RecordHeader.HANDSHAKE) {
                int fo = h.fragmentOffset();
                while (fo < h.end()) {
                    f.parse(b, fo, h.end());
                    if (f.messageLength() > MAX_HANDSHAKE_MESSAGE) {
                        throw new MalformedRecordException("handshake message of " + f.messageLength() + " bytes");
                    }
                    if (f.type() == HandshakeFragment.CLIENT_HELLO && h.recordOffset() == 0 && fo == h.fragmentOffset()) {
                        clientHello = true;
                        if (f.fragmentOffset() == 0 && f.fragmentLength() == f.messageLength() && f.end() == h.end()) {
                            helloBody = f.bodyOffset();
                            helloBodyLength = f.fragmentLength();
                        }
                    }
                    if (pskIdentity == null) {
                        pskIdentity = f.pskIdentity(b);
                    }
                    fo = f.end();
                }
            }
            off = h.end();
        }
    }

    private void reset() {
        epoch = 0;
        maxEpoch = 0;
        cidOffset = -1;
        clientHello = false;
        helloBody = -1;
        helloBodyLength = 0;
        pskIdentity = null;
    }
}
