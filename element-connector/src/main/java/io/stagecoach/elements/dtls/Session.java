package io.stagecoach.elements.dtls;

import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.HexFormat;

/**
 * An established session in compact form: what the records of its epoch need (keys through
 * {@link RecordProtection}, the replay window, the next sequence number to send) and who the
 * peer is. BouncyCastle's handshake objects are gone once this exists. While the session is
 * active it also caches its cipher engines and its delivered {@link EndpointContext};
 * {@link #cool} drops both when it has been idle for a while, so that an idle session costs
 * little heap.
 *
 * <p>Locks: {@link #readLock} serialises record decryption and the replay window (one receive
 * thread normally, so uncontended); {@link #writeLock} serialises sequence numbers and
 * encryption of concurrent senders. The session table's lock guards the LRU links.
 */
final class Session {

    /** RFC 6347 §4.1: sequence numbers are 48 bits and must not wrap. */
    private static final long MAX_SEQUENCE = (1L << 48) - 1;
    /** The peer's repeated final flight is answered at most this often (against replays). */
    private static final long RESEND_INTERVAL_NANOS = 500_000_000L;

    public final Object readLock = new Object();
    private final Object writeLock = new Object();
    private final boolean client;
    private final int epoch;
    private final RecordProtection protection;
    private final CidKey cid;
    private final Principal principal;
    private final byte[] sessionId;
    private final int cipherSuite;
    private final long establishedNanos;
    private final int sendLimit;
    private final ReplayWindow window = new ReplayWindow();
    private long nextSequence;
    private volatile InetSocketAddress peer;
    private volatile EndpointContext plainContext;
    private volatile EndpointContext context;
    private volatile long lastActiveNanos;
    private volatile boolean closed;
    private volatile byte[][] lastFlight;
    private long lastFlightResentNanos;

    // LRU list of the session table (under its lock)
    Session older;
    Session newer;
    long listedNanos;
    boolean listed;

    /**
     * @param nextSequence first sequence number of this side in {@code epoch} (after the
     *                     handshake's Finished and its retransmissions)
     * @param lastFlight   this side's final handshake flight when it sent last (the peer may not
     *                     have it: resent if the peer repeats its own), else {@code null}
     */
    public Session(boolean client, InetSocketAddress peer, HandshakeResult result, int epoch, long nextSequence,
            byte[][] lastFlight, int maxRecordSize, long nowNanos) {
        this.client = client;
        this.epoch = epoch;
        this.protection = result.protection();
        this.cid = result.inboundCid() == null ? null : CidKey.of(result.inboundCid());
        this.principal = result.principal();
        this.sessionId = result.sessionId();
        this.cipherSuite = result.cipherSuite();
        this.nextSequence = nextSequence;
        this.lastFlight = lastFlight;
        this.establishedNanos = nowNanos;
        this.lastActiveNanos = nowNanos;
        this.sendLimit = protection.plaintextLimit(maxRecordSize);
        setPeer(peer);
    }

    public boolean isClient() {
        return client;
    }

    public int epoch() {
        return epoch;
    }

    public RecordProtection protection() {
        return protection;
    }

    /** The replay window of the current epoch (caller holds {@link #readLock}). */
    public ReplayWindow window() {
        return window;
    }

    /** The connection ID we route this session's records by, or {@code null}. */
    public CidKey cid() {
        return cid;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** Moves the session (RFC 9146 §6); only the table calls this, under its lock. */
    void setPeer(InetSocketAddress address) {
        peer = address;
        plainContext = EndpointContext.of(address);
        context = null;
    }

    /** The peer only: where ciphertext goes. */
    public EndpointContext plainContext() {
        return plainContext;
    }

    /** The peer with the DTLS attributes: the context of delivered datagrams (built once while active). */
    public EndpointContext context() {
        EndpointContext c = context;
        if (c == null) {
            c = plainContext;
            if (principal != null) {
                c = c.withAttribute(DtlsContextKeys.PRINCIPAL, principal);
            }
            c = c.withAttribute(DtlsContextKeys.SESSION_ID, HexFormat.of().formatHex(sessionId));
            if (cid != null) {
                c = c.withAttribute(DtlsContextKeys.CONNECTION_ID, cid.toString());
            }
            DtlsCipherSuite s = DtlsCipherSuite.forCode(cipherSuite);
            c = c.withAttribute(DtlsContextKeys.CIPHER_SUITE, s != null ? s.name() : String.format("0x%04X", cipherSuite));
            context = c;
        }
        return c;
    }

    public DtlsCipherSuite suite() {
        return DtlsCipherSuite.forCode(cipherSuite);
    }

    /** The largest plaintext one record can carry within the configured record size. */
    public int sendLimit() {
        return sendLimit;
    }

    public long lastActiveNanos() {
        return lastActiveNanos;
    }

    public void touch(long nanos) {
        lastActiveNanos = nanos;
    }

    public long establishedNanos() {
        return establishedNanos;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Marks the session closed; later sends fail and later records are not delivered. */
    public void close() {
        closed = true;
    }

    /**
     * Encrypts one record with the next sequence number.
     *
     * @throws IllegalStateException if the sequence numbers are exhausted (a new handshake is needed)
     */
    public byte[] seal(int contentType, byte[] plain, int off, int len) {
        synchronized (writeLock) {
            if (nextSequence > MAX_SEQUENCE) {
                throw new IllegalStateException("sequence numbers of epoch " + epoch + " exhausted");
            }
            return protection.seal(contentType, epoch, nextSequence++, plain, off, len);
        }
    }

    /** The peer has shown it has our final flight (an authenticated record other than a handshake one). */
    public void confirmed() {
        lastFlight = null;
    }

    /**
     * The peer repeated its final flight, so ours was lost: the datagrams to send again, or
     * {@code null} (none kept, or resent less than half a second ago). Caller holds {@link #readLock}.
     */
    public byte[][] flightToResend(long nowNanos) {
        byte[][] f = lastFlight;
        if (f == null || nowNanos - lastFlightResentNanos < RESEND_INTERVAL_NANOS) {
            return null;
        }
        lastFlightResentNanos = nowNanos;
        return f;
    }

    /** Whether the final flight is still kept (for the sweep to drop it after a while). */
    public boolean keepsFlight() {
        return lastFlight != null;
    }

    /** Drops the caches of an idle session: cipher engines and the delivered context. */
    public void cool() {
        protection.cool();
        context = null;
    }

    @Override
    public String toString() {
        return "Session[" + peer + (cid != null ? " cid=" + cid : "") + (closed ? " closed" : "") + "]";
    }
}
